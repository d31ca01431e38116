package core

import (
	"os"
	"strings"
	"testing"
)

// The versions are written in more than one place; they must agree.
func TestVersionMatchesHeaderAndCMake(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"../include/tsstore.h", `#define TSSTORE_VERSION_STRING "` + Version + `"`},
		{"../include/tsstore.h", `#define TSSTORE_DATA_FORMAT_VERSION "` + DataFormatVersion + `"`},
		{"../CMakeLists.txt", "project(tsstore VERSION " + Version + " "},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%s does not say %q", c.file, c.want)
		}
	}
}
