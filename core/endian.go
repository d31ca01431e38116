//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package core

// The store passes element bytes to netcdf-c as native values, and the format's bytes are
// little-endian; a big-endian host would need byte swapping that this build does not have.
var _ = bigEndianHostsAreNotSupported
