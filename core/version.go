package core

// Version is the version of this library: the Go core, the C library built from it
// (TSSTORE_VERSION_STRING in include/tsstore.h, project(VERSION) in CMakeLists.txt) and the
// tsstore command. The on-disk format it reads and writes is DataFormatVersion.
const Version = "0.3.1"
