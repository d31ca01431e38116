// The race detector's canary (tests/ctest, label race): a module of its own, so that the
// project's `go build/vet/test ./...` leave it alone.
module github.com/tsstore/tsstore/tests/ctest/race_canary

go 1.26.0
