package ncstore

import (
	"errors"
	"fmt"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// What verify_integrity asks of the file: every indexed array hashed again from its bytes
// (docs/format.md §6), and the datasets sealed at open because their hash companions could
// not be read (docs/format.md §13.8).

// Rehash recomputes the hash of every indexed array and lists those that differ and
// those that cannot be read; a read failure is reported and the check goes on.
func (f *File) Rehash() (bad, unreadable []string, checked int) {
	serial.Lock()
	defer serial.Unlock()
	if err := f.indexLocked(); err != nil {
		unreadable = append(unreadable, fmt.Sprintf("the list of the file's variables: %v", err))
	}
	for _, list := range f.families {
		for _, ds := range list {
			if ds.damaged != nil {
				unreadable = append(unreadable, fmt.Sprintf("%s_h (its index was rebuilt from the columns' bytes; the dataset takes no more writes): %v", ds.name, ds.damaged))
			}
			cols := usedColumns(ds)
			b, err := f.rehashColumns(ds, cols)
			if err != nil {
				// Find the damaged columns one by one; the others still get checked.
				b = nil
				for _, c := range cols {
					bc, err := f.rehashColumns(ds, []int{c})
					if err != nil {
						unreadable = append(unreadable, fmt.Sprintf("%s column %d: %v", ds.name, c, err))
					}
					b = append(b, bc...)
				}
			}
			bad, checked = append(bad, b...), checked+len(cols)
		}
	}
	for d, sv := range f.standalone {
		err := f.describeLocked(sv)
		if errors.Is(err, errNotVariable) {
			continue // a group named arr_…: no array, as netcdf-c saw it
		}
		checked++
		if err != nil {
			unreadable = append(unreadable, fmt.Sprintf("%s: %v", sv.name, err))
			continue
		}
		buf, err := f.readWholeLocked(sv)
		if err != nil {
			unreadable = append(unreadable, fmt.Sprintf("%s: %v", sv.name, err))
			continue
		}
		if got := hashing.Array(sv.dtype.String(), sv.shape, buf, FloatKind(sv.dtype)); got != d {
			bad = append(bad, fmt.Sprintf("%s holds bytes hashing to %x", sv.name, got[:]))
		}
	}
	return bad, unreadable, checked
}

func usedColumns(ds *Packed) []int {
	var cols []int
	for c, d := range ds.slots {
		if d != freeSlot {
			cols = append(cols, c)
		}
	}
	return cols
}

// rehashColumns rehashes some used columns of one packed dataset and reports those whose
// bytes no longer hash to their slot.
func (f *File) rehashColumns(ds *Packed, cols []int) ([]string, error) {
	sums, err := f.columnDigests(ds, cols)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, c := range cols {
		got := sums[c]
		if got != ds.slots[c] {
			bad = append(bad, fmt.Sprintf("%s column %d holds bytes hashing to %x, not its slot's %x", ds.name, c, got[:], ds.slots[c][:]))
		}
	}
	return bad, nil
}

// columnDigests hashes columns of one packed dataset in row bands over their span: each
// column is hashed incrementally as its rows arrive.
func (f *File) columnDigests(ds *Packed, cols []int) (map[int]hashing.Digest, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	lo, hi := cols[0], cols[len(cols)-1]+1
	span := hi - lo
	eb := ElementCount(ds.eshape) * ds.fam.dtype.Width()
	shape := ToU64(append([]int{ds.fam.length}, ds.eshape...))
	hashers := make(map[int]*hashing.ArrayHasher, len(cols))
	for _, c := range cols {
		hashers[c] = hashing.NewArrayHasher(ds.fam.dtype.String(), shape, FloatKind(ds.fam.dtype))
	}
	b := bandSpan{from: 0, to: ds.fam.length, lo: lo, span: span, maxBytes: bandBytes}
	err := ds.walkBands(b, ds.bandBuffer(b), func(r0, r1 int, band []byte, start, count []uint64) error {
		if err := f.readSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			return err
		}
		for _, c := range cols {
			for t := 0; t < r1-r0; t++ {
				off := (t*span + c - lo) * eb
				hashers[c].Write(band[off : off+eb])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int]hashing.Digest, len(cols))
	for _, c := range cols {
		out[c] = hashers[c].Sum()
	}
	return out, nil
}

// DamagedDatasets names the packed datasets sealed at open because their hash companions
// could not be read.
func (f *File) DamagedDatasets() []string {
	f.indexed()
	var out []string
	for _, list := range f.families {
		for _, ds := range list {
			if ds.damaged != nil {
				out = append(out, ds.name)
			}
		}
	}
	return out
}
