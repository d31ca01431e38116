package ncstore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// A hash companion's entry is 64 lowercase hex characters (docs/format.md §7.4); anything
// else marks the column damaged rather than naming a different array.
func TestParseHexDigestTakesLowercaseHexOnly(t *testing.T) {
	want := sha256.Sum256([]byte("tsstore"))
	good := hex.EncodeToString(want[:])
	if d, err := parseHexDigest(good); err != nil || d != want {
		t.Fatalf("parseHexDigest(%q) = %x, %v", good, d, err)
	}
	bad := []string{
		strings.ToUpper(good),
		good[:63] + "g",
		good[:62] + "/0",
		good[:63],
		good + "0",
		"",
		strings.Repeat(":", 64),
	}
	for _, h := range bad {
		if d, err := parseHexDigest(h); err == nil {
			t.Errorf("parseHexDigest(%q) = %x, want an error", h, d)
		}
	}
}
