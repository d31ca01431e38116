//go:build !unix

package core

// lockedElsewhere cannot tell without flock; the open's own error stands.
func lockedElsewhere(string, bool) bool { return false }
