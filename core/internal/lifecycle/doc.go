// Package lifecycle is the life of a store's pair of files on disk, apart from what is in
// them: naming the pair, opening it, who in this process holds it (claims.go), whether this
// process may write it (writable.go), whether a write has room (room.go), whether the two
// files belong together at a writable open (orphans.go), and the compaction rewrite's commit
// protocol and its recovery after a kill (rewrite.go).
//
// Its refusals are ncstore.Error values, the file layer's errors, which package core turns
// into the store's Error of the same kind (core's ncErr), so a message written here reaches
// the user as it is.
package lifecycle
