package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// A compaction rewrite (CompactOptions.Rewrite) gives back the space format 0.11.0 cannot
// shrink in place: free packed columns and standalone variables no row names. It writes the
// live arrays into a new NetCDF file, laid out as a store written afresh with the survivors
// in one batch, copies the catalog (VACUUM INTO), and replaces the old pair with the new one.
//
// The two files cannot be renamed in one step, so the replacement has a commit point of its
// own (docs/reliability.md, "Compaction rewrite"):
//
//  1. the new pair is written into the directory <path>.compacting/ and fsynced;
//  2. a marker, <path>.compacting/commit, records both files' sizes; written under another
//     name, fsynced and renamed into place, then the directory and its parent are fsynced:
//     the commit point;
//  3. the new catalog and then the new .nc are renamed over the old ones, the parent
//     directory is fsynced, and the marker and the directory go.
//
// A kill before the commit point leaves the old pair untouched (the directory is removed by
// the next writable open or rewrite); a kill after it is finished by the next writable open
// of the store, which completes step 3 (finishRewrite); a read-only open refuses until then.
// Either way the store is one pair, whole: the old or the new.

const (
	rewriteDirSuffix = ".compacting"
	rewriteNCName    = "store.nc"
	rewriteMarker    = "commit"
	rewriteMagic     = "tsstore compaction rewrite 1"
)

// RewriteDir is the directory a rewrite of the store at path writes its new pair into.
func RewriteDir(path string) string { return path + rewriteDirSuffix }

// StepHook, when a test sets it, is called at each step of a rewrite with the step's name
// ("written", "committed", "store.nc.sqlite renamed", "store.nc renamed"): the tests kill
// the process there.
var StepHook func(step string)

// Step marks a step of a rewrite for StepHook.
func Step(step string) {
	if StepHook != nil {
		StepHook(step)
	}
}

// RewriteFiles are the new pair's paths inside the rewrite directory and their final names.
func RewriteFiles(path string) (tmpNC, tmpCat string) {
	tmpNC = filepath.Join(RewriteDir(path), rewriteNCName)
	return tmpNC, CatalogPath(tmpNC)
}

// SameOwnerAndMode gives a new file the permissions of the old one it replaces: a private
// store stays private, a group's stays writable by the group. The owner is kept where the
// process may set it (as root, or a group it is in); elsewhere the new file is its own.
func SameOwnerAndMode(tmp, old string) error {
	fi, err := os.Stat(old)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		os.Chown(tmp, int(st.Uid), int(st.Gid))
	}
	return os.Chmod(tmp, fi.Mode().Perm())
}

// CommitRewrite writes the marker that makes the new pair the store (step 2).
func CommitRewrite(path, tmpNC, tmpCat string) error {
	var b strings.Builder
	fmt.Fprintln(&b, rewriteMagic)
	for _, p := range []string{tmpNC, tmpCat} {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d\n", filepath.Base(p), fi.Size())
	}
	marker := filepath.Join(RewriteDir(path), rewriteMarker)
	if err := writeFileSynced(marker+".tmp", []byte(b.String())); err != nil {
		return err
	}
	if err := os.Rename(marker+".tmp", marker); err != nil {
		return err
	}
	if err := FsyncPath(RewriteDir(path)); err != nil {
		return err
	}
	// The directory's own entry too: made by mkdir and never synced before.
	return FsyncPath(filepath.Dir(path))
}

// readMarker parses a commit marker into file name → size.
func readMarker(marker string) (map[string]int64, error) {
	b, err := os.ReadFile(marker)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || lines[0] != rewriteMagic {
		return nil, fmt.Errorf("%s is not a tsstore rewrite marker", marker)
	}
	sizes := map[string]int64{}
	for _, l := range lines[1:] {
		name, n, ok := strings.Cut(l, " ")
		size, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || size < 0 {
			return nil, fmt.Errorf("%s: line %q is not a file and its size", marker, l)
		}
		sizes[name] = size
	}
	return sizes, nil
}

// FinishCommittedRewrite puts in place the new pair of a compaction rewrite that was killed
// after its commit point (an open calls it first). A read-only open changes nothing, so it
// refuses.
func FinishCommittedRewrite(op, path string, readOnly bool) error {
	if _, err := os.Stat(filepath.Join(RewriteDir(path), rewriteMarker)); err != nil {
		return nil
	}
	if readOnly {
		return refuse(ncstore.IO, op,
			"a compaction rewrite of %s was cut short after its commit point; open the store for writing once to finish it (a read-only open changes nothing)", path)
	}
	if err := FinishRewrite(path); err != nil {
		return ioErr(op, err, "finishing the compaction rewrite of %s", path)
	}
	return nil
}

// FinishRewrite completes step 3 of a committed rewrite: it renames whichever of the new
// files are still in the rewrite directory over the old ones, then removes the marker and
// the directory. It is idempotent, so a kill inside it is finished by the next call, and
// it does nothing when no marker is there.
func FinishRewrite(path string) error {
	marker := filepath.Join(RewriteDir(path), rewriteMarker)
	sizes, err := readMarker(marker)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	tmpNC, tmpCat := RewriteFiles(path)
	for _, pair := range [][2]string{{tmpCat, CatalogPath(path)}, {tmpNC, path}} {
		tmp, final := pair[0], pair[1]
		want, ok := sizes[filepath.Base(tmp)]
		if !ok {
			return fmt.Errorf("%s does not record %s", marker, filepath.Base(tmp))
		}
		fi, err := os.Stat(tmp)
		switch {
		case err == nil && fi.Size() != want:
			return fmt.Errorf("%s is %d bytes; the rewrite's marker records %d", tmp, fi.Size(), want)
		case err == nil:
			if err := os.Rename(tmp, final); err != nil {
				return err
			}
			Step(filepath.Base(tmp) + " renamed")
		case errors.Is(err, os.ErrNotExist):
			// Renamed by an earlier call: the final file must be the one the marker records.
			if ffi, ferr := os.Stat(final); ferr != nil || ffi.Size() != want {
				return fmt.Errorf("%s is gone but %s is not the %d bytes the rewrite's marker records", tmp, final, want)
			}
		default:
			return err
		}
	}
	if err := FsyncPath(filepath.Dir(path)); err != nil {
		return err
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Remove(RewriteDir(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return FsyncPath(filepath.Dir(path))
}

// RemoveStaleRewrite removes what a rewrite cut short before its commit point left: the
// rewrite directory with the new pair's files, and nothing else (a directory holding other
// files is left alone and reported).
func RemoveStaleRewrite(path string) error {
	dir := RewriteDir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	tmpNC, tmpCat := RewriteFiles(path)
	// The -journal files are the .nc's and SQLite's (VACUUM INTO keeps one beside its copy
	// while it runs).
	ours := map[string]bool{filepath.Base(tmpNC): true, filepath.Base(tmpCat): true,
		filepath.Base(tmpNC) + "-journal": true, filepath.Base(tmpCat) + "-journal": true,
		rewriteMarker + ".tmp": true}
	for _, e := range entries {
		if !ours[e.Name()] {
			return fmt.Errorf("%s holds %s, which a rewrite did not write; remove the directory by hand", dir, e.Name())
		}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}

// PairSize is the size of a store's two files.
func PairSize(path string) int64 {
	var n int64
	for _, p := range []string{path, CatalogPath(path)} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// FsyncPath makes p's contents (or a directory's entries) durable.
func FsyncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeFileSynced(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
