package journal

// The journalling driver against HDF5's default sec2 driver, driven through netcdf-c: the
// driver must be a byte-for-byte stand-in for sec2 however its overlay spills (journal.c).

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fhs/go-netcdf/netcdf"

	"github.com/tsstore/tsstore/core/internal/ncshim"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// The same random netCDF-4 operations on a file through the default sec2 driver and on one
// through the journalling driver with a small overlay (spilling in the middle of writes,
// straddling E0, partial last pages, chunks that move and shrink): every read must agree,
// the journalled file must hold the sec2 file's bytes after every sync (it may be longer:
// it never shrinks below E0 in a unit), and the closed files must be identical.
func TestJournalDriverMatchesSec2(t *testing.T) {
	if testing.Short() {
		t.Skip("40 seeds")
	}
	var seeds []int64
	for s := int64(1); s <= 40; s++ {
		seeds = append(seeds, s)
	}
	spills := []int{4096, 8192, 12288, 65536}
	if v := os.Getenv("TSSTORE_RECOVERY_SEED"); v != "" {
		var seed int64
		fmt.Sscan(v, &seed)
		seeds = []int64{seed}
	}
	for _, seed := range seeds {
		jrDiff(t, seed, spills[seed%4])
	}
}

func jrDiff(t *testing.T, seed int64, spill int) {
	t.Helper()
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "plain.nc"), filepath.Join(dir, "jour.nc")}
	serial.Lock()
	defer serial.Unlock()
	plain, err := netcdf.CreateFile(paths[0], netcdf.NETCDF4|netcdf.NOCLOBBER)
	if err != nil {
		t.Fatal(err)
	}
	var jour netcdf.Dataset
	var j *Journal
	if os.Getenv("TSSTORE_RECOVERY_CONTROL") != "" { // both through sec2: is HDF5 deterministic?
		jour, err = netcdf.CreateFile(paths[1], netcdf.NETCDF4|netcdf.NOCLOBBER)
	} else {
		SetSpill(spill)
		jour, j, err = Open(paths[1], func() (netcdf.Dataset, error) {
			return netcdf.CreateFile(paths[1], netcdf.NETCDF4|netcdf.NOCLOBBER)
		})
		SetSpill(0)
		if err != nil || j == nil {
			t.Fatalf("journalled create: %v (journal %v)", err, j)
		}
	}
	both := []netcdf.Dataset{plain, jour}
	rng := rand.New(rand.NewSource(seed))
	type vinfo struct {
		n  uint64
		id int
	}
	var vars []vinfo
	syncs := 0
	differ := ""
	compare := func(when string) {
		for _, ds := range both {
			if err := ncshim.Sync(ds); err != nil {
				t.Fatalf("seed %d: sync: %v", seed, err)
			}
		}
		if j != nil {
			if err := j.EndUnit(); err != nil {
				t.Fatalf("seed %d: end unit: %v", seed, err)
			}
		}
		a, b := readAll(t, paths[0]), readAll(t, paths[1])
		if len(b) < len(a) || !bytes.Equal(a, b[:len(a)]) {
			at := 0
			for at < len(a) && at < len(b) && a[at] == b[at] {
				at++
			}
			if len(b) < len(a) {
				t.Fatalf("seed %d spill %d, %s: the journalled file is shorter than sec2's (%d vs %d)", seed, spill, when, len(b), len(a))
			}
			diffs, real := 0, 0
			for k := range a {
				if a[k] != b[k] {
					diffs++
					if a[k] != 0 {
						real++
					}
				}
			}
			if os.Getenv("TSSTORE_RECOVERY_DUMP") != "" {
				os.WriteFile("/tmp/rv_plain.nc", a, 0o644)
				os.WriteFile("/tmp/rv_jour.nc", b, 0o644)
			}
			// Where sec2's file has a hole (zeros: it truncated the file at a flush and HDF5
			// later extended it) the journalled one keeps stale bytes of freed space — it never
			// shrinks below E0 in a unit. Anything else would be a wrong byte.
			if real > 0 || len(b) < len(a) {
				t.Fatalf("seed %d spill %d, %s: the journalled file differs from sec2's in %d bytes that sec2 wrote (%d vs %d bytes, first difference at %d)", seed, spill, when, real, len(b), len(a), at)
			}
			if differ == "" {
				differ = fmt.Sprintf("seed %d spill %d, %s: %d bytes differ, all in holes of sec2's file", seed, spill, when, diffs)
			}
		}
		syncs++
	}
	for op := 0; op < 160; op++ {
		if op == 80 { // close and reopen both: the next units start from a closed file's E0
			compare("before the reopen")
			for _, ds := range both {
				if err := ds.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if plain, err = netcdf.OpenFile(paths[0], netcdf.WRITE); err != nil {
				t.Fatal(err)
			}
			if j != nil {
				SetSpill(spill)
				jour, j, err = Open(paths[1], func() (netcdf.Dataset, error) { return netcdf.OpenFile(paths[1], netcdf.WRITE) })
				SetSpill(0)
			} else {
				jour, err = netcdf.OpenFile(paths[1], netcdf.WRITE)
			}
			if err != nil {
				t.Fatal(err)
			}
			both = []netcdf.Dataset{plain, jour}
		}
		switch r := rng.Intn(12); {
		case r == 0 && len(vars) < 8 || len(vars) == 0:
			n := uint64(50 + rng.Intn(30000))
			chunk := uint64(1 + rng.Intn(int(n)))
			deflate := rng.Intn(3) != 0
			level := 1 + rng.Intn(9)
			id := len(vars)
			for _, ds := range both {
				d, err := ds.AddDim(fmt.Sprintf("d%d", id), n)
				if err != nil {
					t.Fatal(err)
				}
				v, err := ds.AddVar(fmt.Sprintf("v%d", id), netcdf.DOUBLE, []netcdf.Dim{d})
				if err != nil {
					t.Fatal(err)
				}
				if err := ncshim.DefChunking(ds, id, []uint64{chunk}); err != nil {
					t.Fatal(err)
				}
				if deflate {
					if err := v.SetCompression(true, true, level); err != nil {
						t.Fatal(err)
					}
				}
				if err := ds.EndDef(); err != nil {
					t.Fatal(err)
				}
			}
			vars = append(vars, vinfo{n, id})
		case r <= 7: // write a slab (low-entropy values sometimes, so compressed chunks change size)
			v := vars[rng.Intn(len(vars))]
			start := uint64(rng.Intn(int(v.n)))
			count := uint64(1 + rng.Intn(int(v.n-start)))
			data := make([]float64, count)
			lowEntropy := rng.Intn(2) == 0
			for i := range data {
				if lowEntropy {
					data[i] = float64(rng.Intn(3))
				} else {
					data[i] = rng.NormFloat64()
				}
			}
			for _, ds := range both {
				if err := ds.VarN(v.id).WriteFloat64Slice(data, []uint64{start}, []uint64{count}); err != nil {
					t.Fatal(err)
				}
			}
		case r <= 9: // read a slab from both
			v := vars[rng.Intn(len(vars))]
			start := uint64(rng.Intn(int(v.n)))
			count := uint64(1 + rng.Intn(int(v.n-start)))
			got := [2][]float64{make([]float64, count), make([]float64, count)}
			for k, ds := range both {
				if err := ds.VarN(v.id).ReadFloat64Slice(got[k], []uint64{start}, []uint64{count}); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.EqualFunc(got[0], got[1], sameBits) {
				t.Fatalf("seed %d spill %d op %d: a read through the journalled driver differs from sec2's", seed, spill, op)
			}
		default:
			compare(fmt.Sprintf("sync after op %d", op))
		}
	}
	compare("the last sync")
	for _, ds := range both {
		if err := ds.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Every variable reads back the same from the closed files.
	for k, p := range paths {
		ds, err := netcdf.OpenFile(p, netcdf.NOWRITE)
		if err != nil {
			t.Fatal(err)
		}
		both[k] = ds
	}
	for _, v := range vars {
		got := [2][]float64{make([]float64, v.n), make([]float64, v.n)}
		for k, ds := range both {
			if err := ds.VarN(v.id).ReadFloat64s(got[k]); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.EqualFunc(got[0], got[1], sameBits) {
			t.Errorf("seed %d spill %d: variable v%d reads differently from the closed files", seed, spill, v.id)
		}
	}
	for _, ds := range both {
		ds.Close()
	}
	if differ != "" || !bytes.Equal(readAll(t, paths[0]), readAll(t, paths[1])) {
		a, b := readAll(t, paths[0]), readAll(t, paths[1])
		t.Logf("%s; closed files equal: %v (%d vs %d bytes)", differ, bytes.Equal(a, b), len(b), len(a))
	}
	if _, err := os.Stat(Path(paths[1])); j != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("seed %d: the journal outlived the close", seed)
	}
	t.Logf("seed %d spill %d: %d vars, %d syncs compared", seed, spill, len(vars), syncs)
}

func readAll(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameBits compares two values bit for bit: the driver must return the very bytes sec2 does.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
