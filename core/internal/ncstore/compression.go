package ncstore

import (
	"fmt"
	"strconv"
	"strings"
)

// Compression is the filter policy of a store, fixed at creation (docs/format.md §7.7).
// The zero value is no compression.
type Compression struct {
	Deflate bool
	Level   int // 0–9
	Shuffle bool
}

// DefaultCompression is deflate level 3 with the byte-shuffle filter.
var DefaultCompression = Compression{Deflate: true, Level: 3, Shuffle: true}

// String is the compression attribute's spelling (docs/format.md §7.7).
func (c Compression) String() string {
	if !c.Deflate {
		return "none"
	}
	sh := "noshuffle"
	if c.Shuffle {
		sh = "shuffle"
	}
	return fmt.Sprintf("deflate:%d:%s", c.Level, sh)
}

// ParseCompression reads the attribute grammar: none | deflate:{0-9}:shuffle|noshuffle.
func ParseCompression(s string) (Compression, error) {
	if s == "none" {
		return Compression{}, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) == 3 && parts[0] == "deflate" && (parts[2] == "shuffle" || parts[2] == "noshuffle") {
		if lvl, err := strconv.Atoi(parts[1]); err == nil && lvl >= 0 && lvl <= 9 && len(parts[1]) == 1 {
			return Compression{Deflate: true, Level: lvl, Shuffle: parts[2] == "shuffle"}, nil
		}
	}
	return Compression{}, fmt.Errorf("%q is not none, deflate:{0-9}:shuffle or deflate:{0-9}:noshuffle", s)
}
