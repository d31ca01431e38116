package core

// Random mutations around FuzzOpenMutatedNC's seed corpus, judged as the fuzz target judges
// them. This is the search `go test -fuzz=FuzzOpenMutatedNC` makes, without the fuzz engine:
// its workers fail any input that runs for 10 s of wall time (a limit of the toolchain), and
// one child here can take that long on a loaded machine, or more when it hangs and runs
// until ncmHang's CPU bound. The engine's coverage guidance sees none of the child's work,
// so nothing is lost by leaving it.

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	ncmRandomN    = flag.Int("ncm-random", 0, "TestRandomMutatedNC: how many random mutations to run (make test: 200; 0 skips)")
	ncmRandomSeed = flag.Uint64("ncm-seed", 0, "TestRandomMutatedNC: the random seed (0: a new one, which the test prints)")
)

func TestRandomMutatedNC(t *testing.T) {
	if *ncmRandomN <= 0 {
		t.Skip("run with -ncm-random N (make test runs 200)")
	}
	if raceEnabled {
		t.Skip("runs without the race detector, like TestMutatedNCFiles")
	}
	tpl := ncmTemplateOnce(t)
	seeds := ncmSeedCorpus(t)
	seed := *ncmRandomSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	r := rand.New(rand.NewPCG(seed, 0x6e636d72))
	muts := make([]ncmMutation, *ncmRandomN)
	for i := range muts {
		muts[i] = ncmRandomMutation(r, seeds, len(tpl.nc))
		muts[i].name = fmt.Sprintf("random %d/%d (%s)", i+1, len(muts), muts[i].name)
	}
	outs, wall := ncmRunAll(t, tpl, muts)
	var tally ncmTally
	for i, m := range muts {
		tally.add(outs[i])
		desc := ncmDescribe(m.name, tpl, m.off, outs[i])
		if fatal, why := ncmFatal(outs[i]); fatal {
			t.Errorf("%s: %s", why, desc)
		} else if testing.Verbose() {
			t.Logf("%s", desc)
		}
	}
	line := fmt.Sprintf("mutated nc (random, -ncm-seed %d): %s, in %v", seed, strings.TrimPrefix(tally.String(), "mutated nc: "),
		wall.Round(time.Second))
	t.Log(line)
	fmt.Println(line)
}

// ncmSeedCorpus reads FuzzOpenMutatedNC's committed seeds (go test fuzz v1 files holding a
// uint32 offset and a []byte patch).
func ncmSeedCorpus(t *testing.T) []ncmMutation {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", "FuzzOpenMutatedNC")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []ncmMutation
	for _, e := range ents {
		m, err := ncmParseSeed(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("seed %s: %v", e.Name(), err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatalf("no seeds in %s", dir)
	}
	return out
}

func ncmParseSeed(path string) (ncmMutation, error) {
	f, err := os.Open(path)
	if err != nil {
		return ncmMutation{}, err
	}
	defer f.Close()
	var lines []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) != 3 || lines[0] != "go test fuzz v1" {
		return ncmMutation{}, fmt.Errorf("not a go test fuzz v1 file of two values: %q", lines)
	}
	off, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(lines[1], "uint32("), ")"), 10, 32)
	if err != nil {
		return ncmMutation{}, fmt.Errorf("offset %q: %v", lines[1], err)
	}
	patch, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")"))
	if err != nil {
		return ncmMutation{}, fmt.Errorf("patch %q: %v", lines[2], err)
	}
	return ncmMutation{name: "seed " + filepath.Base(path), off: uint32(off), patch: []byte(patch)}, nil
}

// ncmRandomMutation changes a seed one to three times: the offset moved near the seed's
// structure or anywhere, a bit of the patch flipped, the patch longer, shorter or replaced,
// and now and then a truncation instead. name says what it became.
func ncmRandomMutation(r *rand.Rand, seeds []ncmMutation, size int) ncmMutation {
	s := seeds[r.IntN(len(seeds))]
	off, patch := s.off, slices.Clone(s.patch)
	for k := 1 + r.IntN(3); k > 0; k-- {
		switch r.IntN(6) {
		case 0:
			off += uint32(r.IntN(129)) - 64
		case 1:
			off = uint32(r.IntN(size))
		case 2:
			if len(patch) > 0 {
				patch[r.IntN(len(patch))] ^= 1 << r.IntN(8)
			}
		case 3:
			patch = append(patch, byte(1+r.IntN(255)))
		case 4:
			if len(patch) > 1 {
				patch = patch[:len(patch)-1]
			}
		case 5:
			patch = make([]byte, 1+r.IntN(16))
			for i := range patch {
				patch[i] = byte(1 + r.IntN(255))
			}
		}
	}
	if r.IntN(20) == 0 {
		patch = nil
	}
	patch = patch[:min(len(patch), ncmMaxPatch)]
	what := fmt.Sprintf("from %s: xor %x", s.name, patch)
	if len(patch) == 0 {
		what = fmt.Sprintf("from %s: truncate", s.name)
	}
	return ncmMutation{name: what, off: off, patch: patch}
}
