//go:build !unix

package ncstore

// lockedElsewhere cannot tell without flock; the open's own error stands.
func lockedElsewhere(string, bool) bool { return false }
