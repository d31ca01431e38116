package ncstore

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/serial"
)

const (
	// DefaultColsPerDataset is the width of a packed dataset created by a one-at-a-time
	// write (docs/format.md §7.3).
	DefaultColsPerDataset = 1000
	// MaxChunkBytes caps one HDF5 chunk (docs/format.md §7.3, §7.5).
	MaxChunkBytes = 1 << 20
	// packedCacheCap bounds the chunk cache of one packed dataset. A one-at-a-time add
	// writes one column, which touches every row chunk of the dataset; when all of them fit
	// in the cache, N adds compress and write each chunk once (at sync or close) instead of N
	// times. HDF5 allocates cache entries only for chunks actually touched, so a dataset that
	// is only read by rows costs one chunk, not the cap.
	packedCacheCap = 128 << 20
)

// familyKey groups the arrays that may share a packed dataset: one (dtype, element shape,
// length, resolution).
type familyKey struct {
	dtype  DType
	shape  string // "s" for scalar elements, else dims joined by "x"
	length int
	res    string // canonical period
}

func (k familyKey) baseName() string {
	return fmt.Sprintf("sts_%s_%s_%d_%s", k.dtype, k.shape, k.length, k.res)
}

func shapeToken(eshape []int) string {
	if len(eshape) == 0 {
		return "s"
	}
	parts := make([]string, len(eshape))
	for i, d := range eshape {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// Packed is one packed dataset (length, cols, *E) and its hash companion.
type Packed struct {
	name   string
	suffix int // 0 for the base dataset, n for …__n
	fam    familyKey
	eshape []int
	cols   int
	varid  int
	hvarid int
	slots  []hashing.Digest // hash of each column, zero when free (freeSlot)
	nfree  int
	// unwritten: the hash companion was defined this session and none of its slots written;
	// its storage holds null strings until the first write, which writes every slot
	// (docs/format.md §7.8).
	unwritten bool
	// damaged is why the hash companion could not be read (a kill or a full disk during the
	// write that created the dataset); such a dataset is sealed: none of its columns is
	// indexed, none is free, and verify_integrity reports it.
	damaged error
	// pipe is how the dataset's chunks are encoded, read from its filters on first use;
	// pipeOK says whether chunkpipe can encode them (direct.go).
	pipe   *chunkpipe.Pipeline
	pipeOK bool
	// decoded keeps rows direct reads decoded (rowcache.go); tooLarge: the dataset is too
	// large to keep them.
	decoded  *decodedRows
	tooLarge bool
}

// Slot is the column of a packed dataset that holds one array.
type Slot struct {
	ds  *Packed
	col int
}

// Dataset is the packed dataset of the slot.
func (s Slot) Dataset() *Packed { return s.ds }

// Column is the slot's column in its dataset.
func (s Slot) Column() int { return s.col }

// PackedName is the base name of the packed dataset an array of the given dtype, element
// shape, length and resolution (a canonical period) belongs to (docs/format.md §7.3).
func PackedName(dt DType, eshape []int, length int, res string) string {
	return familyKey{dt, shapeToken(eshape), length, res}.baseName()
}

func isHashCompanion(name string) bool { return strings.HasSuffix(name, "_h") }

// sortByName orders a family's datasets by name: a writer fills the first dataset of a
// family "in name order" that has a free column (docs/format.md §7.4). Taken literally, so
// …__10 comes before …__2; any order reads the same, but following the text keeps two
// writers filling the same slots (the reading of docs/format.md §13.1).
func sortByName(list []*Packed) {
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
}

// parsePackedName splits sts_{dtype}_{shape}_{length}_{res}[__n] (docs/format.md §7.3).
func parsePackedName(name string) (familyKey, []int, int, error) {
	rest := strings.TrimPrefix(name, "sts_")
	suffix := 0
	if i := strings.LastIndex(rest, "__"); i >= 0 {
		n, err := strconv.Atoi(rest[i+2:])
		if err != nil || n < 1 {
			return familyKey{}, nil, 0, fmt.Errorf("spill suffix %q is not a positive integer", rest[i+2:])
		}
		suffix, rest = n, rest[:i]
	}
	parts := strings.Split(rest, "_")
	if len(parts) != 4 {
		return familyKey{}, nil, 0, fmt.Errorf("name is not sts_{dtype}_{shape}_{length}_{res}")
	}
	dt, err := ParseDType(parts[0])
	if err != nil {
		return familyKey{}, nil, 0, fmt.Errorf("unknown dtype %q", parts[0])
	}
	var eshape []int
	if parts[1] != "s" {
		for _, p := range strings.Split(parts[1], "x") {
			d, err := strconv.Atoi(p)
			if err != nil || d < 1 {
				return familyKey{}, nil, 0, fmt.Errorf("element shape %q is not s or dims joined by x", parts[1])
			}
			eshape = append(eshape, d)
		}
	}
	length, err := strconv.Atoi(parts[2])
	if err != nil || length < 0 {
		return familyKey{}, nil, 0, fmt.Errorf("length %q is not an integer", parts[2])
	}
	res, err := isotime.ParsePeriod(parts[3])
	if err != nil {
		return familyKey{}, nil, 0, fmt.Errorf("resolution %q: %v", parts[3], err)
	}
	return familyKey{dt, shapeToken(eshape), length, res.String()}, eshape, suffix, nil
}

// packedMeta is what an open reads of a packed dataset and its hash companion before
// indexing them (h5file.go).
type packedMeta struct {
	lens      []uint64
	dtype     DType
	dtypeOK   bool
	typeName  string // the variable's type as the route names it, for messages
	hlens     []uint64
	hIsString bool
	// slots reads the companion's cols hash slots; a slot that is not a hash is a
	// *badSlotError, a read HDF5 could not make any other error.
	slots func(cols int) ([]hashing.Digest, error)
}

// freeSlot is a free column's slot: the empty string in the file (§7.4). No content hashes
// to zero, so the zero digest stands for it in memory, and a slot whose text is 64 zeros is
// no hash (parseSlot).
var freeSlot hashing.Digest

// badSlotError is a hash slot that holds neither "" nor a hash.
type badSlotError struct {
	col  int
	text string
	err  error
}

func (e *badSlotError) Error() string {
	return fmt.Sprintf("hash slot %d holds %q: %v", e.col, e.text, e.err)
}

// parseSlot reads hash slot col, text s, into *d; s may be a view of C memory and is not
// kept (a copy goes into an error).
func parseSlot(d *hashing.Digest, col int, s string) error {
	if s == "" {
		return nil
	}
	v, err := parseHexDigest(s)
	if err == nil && v == freeSlot {
		err = errors.New("no content hashes to zero")
	}
	if err != nil {
		return &badSlotError{col: col, text: strings.Clone(s), err: err}
	}
	*d = v
	return nil
}

// indexPacked adds one packed dataset found on open. The name, the variable's type and its
// dimensions must agree (IntegrityError otherwise): a disagreement means the file was not
// written by a conforming writer and reads through it would return wrong data.
func (f *File) indexPacked(name string, varid, hvarid int, meta packedMeta) error {
	bad := func(format string, args ...any) error {
		return newErr(Integrity, "open", name, format, args...)
	}
	fam, eshape, suffix, err := parsePackedName(name)
	if err != nil {
		return bad("%v", err)
	}
	lens := meta.lens
	if !meta.dtypeOK || meta.dtype != fam.dtype {
		return bad("variable type %v disagrees with dtype %s in its name", meta.typeName, fam.dtype)
	}
	if len(lens) != 2+len(eshape) {
		return bad("has %d dimensions; its name implies %d", len(lens), 2+len(eshape))
	}
	// An unlimited time dimension of current length 0 reads as empty (docs/format.md §7.6).
	if int(lens[0]) != fam.length && !(lens[0] == 0 && fam.length == 0) {
		return bad("time dimension is %d; its name says %d", lens[0], fam.length)
	}
	for i, d := range eshape {
		if int(lens[2+i]) != d {
			return bad("element dimension %d is %d; its name says %d", i, lens[2+i], d)
		}
	}
	// The column count comes from the _c dimension: that is how per-dataset widths
	// round-trip (docs/format.md §7.3).
	cols := int(lens[1])
	if !meta.hIsString || len(meta.hlens) != 1 || int(meta.hlens[0]) != cols {
		return bad("hash companion %s_h is not a string variable of %d slots", name, cols)
	}
	slots, err := meta.slots(cols)
	var badSlot *badSlotError
	if errors.As(err, &badSlot) {
		return bad("%v", badSlot)
	}
	if err != nil {
		// Left by a write that failed (a full disk) or was killed while it wrote hash slots:
		// vlen strings live in HDF5's global heap, which such a write can leave half
		// updated. See indexFromColumns.
		return f.indexFromColumns(&Packed{name: name, suffix: suffix, fam: fam, eshape: eshape,
			cols: cols, varid: varid, hvarid: hvarid, slots: make([]hashing.Digest, cols), damaged: err})
	}
	ds := &Packed{name: name, suffix: suffix, fam: fam, eshape: eshape, cols: cols,
		varid: varid, hvarid: hvarid, slots: slots}
	for col, d := range slots {
		if d == freeSlot {
			ds.nfree++
			continue
		}
		if _, dup := f.packed[d]; !dup {
			f.packed[d] = Slot{ds, col}
		}
	}
	f.families[fam] = append(f.families[fam], ds)
	return nil
}

// parseHexDigest parses a hash companion's entry: 64 lowercase hex characters (§7.4). An
// open parses one per column, so it decodes in place, with no copy of h.
func parseHexDigest(h string) (hashing.Digest, error) {
	var d hashing.Digest
	if len(h) != 64 {
		return d, fmt.Errorf("not 64 lowercase hex characters")
	}
	bad := byte(0)
	for i := range d {
		hi, lo := lowerHex[h[2*i]], lowerHex[h[2*i+1]]
		bad |= hi | lo
		d[i] = hi<<4 | lo&15
	}
	if bad > 15 {
		return d, fmt.Errorf("not 64 lowercase hex characters")
	}
	return d, nil
}

// lowerHex is the value of each lowercase hex digit, 255 for any other byte: a table, as a
// read-only open parses the name of every standalone variable (a switch per character took
// 12% of the open of 1,000 forecasts).
var lowerHex = func() (t [256]byte) {
	for c := range t {
		t[c] = 255
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

func (ds *Packed) chunkBytes() int { return ds.cols * ds.elementBytes() }

// elementBytes is the size of one element of a column: one step of one series.
func (ds *Packed) elementBytes() int { return ElementCount(ds.eshape) * ds.fam.dtype.Width() }

// Name is the dataset's variable name, sts_{dtype}_{shape}_{length}_{res}[__n].
func (ds *Packed) Name() string { return ds.name }

// DType is the element type of every column.
func (ds *Packed) DType() DType { return ds.fam.dtype }

// Length is the number of rows (time steps) of every column.
func (ds *Packed) Length() int { return ds.fam.length }

// ElementShape is the shape of one step of a column (empty for scalars).
func (ds *Packed) ElementShape() []int { return ds.eshape }

// ElementBytes is the size of one step of one column.
func (ds *Packed) ElementBytes() int { return ds.elementBytes() }

// SlotHash is the hash of the array column col holds, zero when the column is free
// (docs/format.md §7.4).
func (ds *Packed) SlotHash(col int) hashing.Digest { return ds.slots[col] }

// Damaged is why the dataset's hash companion could not be read at open (nil when it could):
// such a dataset is sealed, its index rebuilt from its columns' bytes (indexFromColumns).
func (ds *Packed) Damaged() error { return ds.damaged }

// FreeColumns is the number of columns that hold no array.
func (ds *Packed) FreeColumns() int { return ds.nfree }

// Holds says whether the dataset's columns are arrays of the given dtype, length and element
// shape: what a catalog row claims of the array it names.
func (ds *Packed) Holds(dt DType, length int, eshape []int) bool {
	return ds.fam.dtype == dt && ds.fam.length == length && slices.Equal(ds.eshape, eshape)
}

// packedCacheSize is the chunk cache a packed dataset gets: room for every chunk when that
// fits in packedCacheCap, else none.
func packedCacheSize(ds *Packed) (bytes, slots uint64) {
	chunk := uint64(ds.chunkBytes())
	total := chunk * uint64(max(ds.fam.length, 1))
	if total > packedCacheCap {
		// A cache that cannot hold the dataset only costs here: a whole-column read cycles
		// every chunk through it and keeps 128 MiB for nothing (measured on a 700 MB
		// dataset, warm: 0.90–1.00 s per column with the cache, 0.85–0.94 s without), and
		// writes arrive in row bands. The store's read cache (colcache.go) keeps decoded
		// columns of such datasets instead.
		return 0, 1
	}
	fit := total / max(chunk, 1)
	return total, nextPrime(2*fit + 1)
}

// nextPrime returns the smallest prime >= n; HDF5 wants a prime slot count to spread its
// chunk hash.
func nextPrime(n uint64) uint64 {
	if n < 2 {
		return 2
	}
	for ; ; n++ {
		prime := true
		for d := uint64(2); d*d <= n; d++ {
			if n%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			return n
		}
	}
}

// packedWidth clamps a requested width so one chunk (1, cols, *E) stays within
// MaxChunkBytes (docs/format.md §7.3).
func packedWidth(requested int, eshape []int, dt DType) int {
	limit := max(1, MaxChunkBytes/(ElementCount(eshape)*dt.Width()))
	return min(max(requested, 1), limit)
}

// definePacked creates the family's next dataset of the given width.
func (f *File) definePacked(fam familyKey, eshape []int, cols int) (*Packed, error) {
	suffix := 0
	for _, ds := range f.families[fam] {
		suffix = max(suffix, ds.suffix+1)
	}
	return f.definePackedAs(fam, eshape, cols, suffix)
}

// definePackedAs defines the dataset of a family with the given spill suffix.
func (f *File) definePackedAs(fam familyKey, eshape []int, cols, suffix int) (*Packed, error) {
	name := fam.baseName()
	if suffix > 0 {
		name = fmt.Sprintf("%s__%d", name, suffix)
	}
	lens := append([]uint64{uint64(fam.length), uint64(cols)}, ToU64(eshape)...)
	dimNames := []string{name + "_t", name + "_c"}
	for i := range eshape {
		dimNames = append(dimNames, fmt.Sprintf("%s_e%d", name, i))
	}
	f.defining = true
	ds := &Packed{name: name, suffix: suffix, fam: fam, eshape: eshape, cols: cols,
		slots: make([]hashing.Digest, cols), nfree: cols, unwritten: true}
	if err := f.definePackedH5(ds, dimNames, lens); err != nil {
		return nil, err
	}
	f.h5.unwritten = append(f.h5.unwritten, ds)
	f.families[fam] = append(f.families[fam], ds)
	sortByName(f.families[fam])
	return ds, nil
}

// reserveSlot marks column col of ds taken by d in memory. The file's hash slot is written
// by fillRuns after the data; until then a reopen sees the column free.
func (f *File) reserveSlot(ds *Packed, col int, d hashing.Digest) Slot {
	ds.slots[col] = d
	ds.nfree--
	return Slot{ds, col}
}

// unreserveColumn returns a reserved column whose data was never written.
func (f *File) unreserveColumn(slot Slot) {
	slot.ds.slots[slot.col] = freeSlot
	slot.ds.nfree++
}

func (ds *Packed) columnHyperslab(col int) (start, count []uint64) {
	start = make([]uint64, 2+len(ds.eshape))
	start[1] = uint64(col)
	count = append([]uint64{uint64(ds.fam.length), 1}, ToU64(ds.eshape)...)
	return start, count
}

// bandSpan is a run of rows [from, to) of adjacent columns [lo, lo+span) of a packed
// dataset, walked in row bands of at most maxBytes (at least one row each): every chunk of
// the span lies in one band, so each is decompressed or compressed once.
type bandSpan struct {
	from, to, lo, span int
	maxBytes           int
}

// rowsPerBand is how many rows of the span one band holds.
func (ds *Packed) rowsPerBand(b bandSpan) int {
	return max(1, b.maxBytes/max(b.span*ds.elementBytes(), 1))
}

// bandBuffer is a buffer large enough for the span's largest band.
func (ds *Packed) bandBuffer(b bandSpan) []byte {
	return AlignedBytes(min(ds.rowsPerBand(b), b.to-b.from) * b.span * ds.elementBytes())
}

// walkBands calls fn for each band of b in row order: band holds rows [r0, r1) of the span,
// row-major (row, column, element), in buf's memory; start and count are its hyperslab.
func (ds *Packed) walkBands(b bandSpan, buf []byte, fn func(r0, r1 int, band []byte, start, count []uint64) error) error {
	rows, eb := ds.rowsPerBand(b), ds.elementBytes()
	for r0 := b.from; r0 < b.to; r0 += rows {
		r1 := min(r0+rows, b.to)
		start, count := ds.columnHyperslab(b.lo)
		start[0], count[0], count[1] = uint64(r0), uint64(r1-r0), uint64(b.span)
		if err := fn(r0, r1, buf[:(r1-r0)*b.span*eb], start, count); err != nil {
			return err
		}
	}
	return nil
}

// ReadColumn reads rows [first, first+n) of one packed column into dst (new memory when
// nil), through the read cache.
func (f *File) ReadColumn(slot Slot, first, n int, dst []byte) ([]byte, error) {
	serial.Lock()
	defer serial.Unlock()
	ds := slot.ds
	eb := ElementCount(ds.eshape) * ds.fam.dtype.Width()
	if b := f.colCache.find(ds, slot.col); b != nil {
		f.colCache.hits++
		return b.column(slot.col, first, n, eb, dst), nil
	}
	if first == 0 && n == ds.fam.length {
		// A whole column inflates every chunk of the dataset: read its block instead.
		if lo, hi, ok := f.colCache.blockSpan(ds, slot.col); ok {
			b, err := f.readBlock(ds, lo, hi)
			if err != nil {
				return nil, err
			}
			f.colCache.add(b)
			return b.column(slot.col, first, n, eb, dst), nil
		}
	}
	buf := Into(dst, n*eb)
	one := []*ColumnRead{{Col: slot.col, First: first, N: n, Data: buf}}
	if done, err := f.readRowsDirect(ds, first, first+n, func(rows [][]byte, r0 int) { spreadRows(rows, r0, 0, eb, one) }); done {
		if err != nil {
			return nil, err
		}
		return buf, nil
	}
	start, count := ds.columnHyperslab(slot.col)
	start[0], count[0] = uint64(first), uint64(n)
	f.chunkReads += int64(n) // one (1, cols, *E) chunk per row
	if err := f.readSlice(ds.varid, ds.fam.dtype, buf, start, count); err != nil {
		return nil, err
	}
	return buf, nil
}

// readBlock reads every row of columns [lo, hi) of a packed dataset in one hyperslab.
func (f *File) readBlock(ds *Packed, lo, hi int) (*columnBlock, error) {
	eb := ds.elementBytes()
	span := (hi - lo) * eb
	buf := AlignedBytes(ds.fam.length * span)
	block := &columnBlock{ds: ds, lo: lo, hi: hi, data: buf}
	if done, err := f.readRowsDirect(ds, 0, ds.fam.length, func(rows [][]byte, r0 int) {
		for i, row := range rows {
			copy(buf[(r0+i)*span:(r0+i+1)*span], row[lo*eb:hi*eb])
		}
	}); done {
		if err != nil {
			return nil, err
		}
		return block, nil
	}
	start, count := ds.columnHyperslab(lo)
	count[1] = uint64(hi - lo)
	f.chunkReads += int64(ds.fam.length)
	if err := f.readSlice(ds.varid, ds.fam.dtype, buf, start, count); err != nil {
		return nil, err
	}
	return block, nil
}

// indexFromColumns rebuilds the index of a dataset whose hash companion cannot be read from
// its columns' own bytes: each readable column is indexed under the hash of what it holds,
// so a read through it is right by construction (content addressing), whatever the lost
// slots said (docs/format.md §13.8). Which columns were free is unknown, so the dataset
// takes no more writes (nfree 0) and its slots are never written again. A column that
// cannot be read either is left out; if a committed row lived there, the catalog check of
// a writable open (lifecycle.CleanOrphans) refuses the pair and reads of that row fail as
// integrity errors.
func (f *File) indexFromColumns(ds *Packed) error {
	all := make([]int, ds.cols)
	for c := range all {
		all[c] = c
	}
	sums, err := f.columnDigests(ds, all)
	if err != nil {
		sums = map[int]hashing.Digest{}
		for _, c := range all {
			if one, err := f.columnDigests(ds, []int{c}); err == nil {
				sums[c] = one[c]
			}
		}
	}
	for c := 0; c < ds.cols; c++ {
		d, ok := sums[c]
		if !ok {
			continue
		}
		ds.slots[c] = d
		if _, dup := f.packed[d]; !dup {
			f.packed[d] = Slot{ds, c}
		}
	}
	f.families[ds.fam] = append(f.families[ds.fam], ds)
	return nil
}
