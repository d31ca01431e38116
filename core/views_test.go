package core

import (
	"strings"
	"testing"
)

// viewStore holds owner 1's "p" with two derived forecasts (intervals PT4H and PT8H), owner
// 2's "p" with one (PT4H), and owner 3's "q" with none; everything flushed.
func viewStore(t *testing.T) (s *Store, path string, src1, src2, q Key) {
	t.Helper()
	s, path = newStore(t)
	src1 = mustAdd(t, s, gen(1), hourly("p", ramp(48, 1)), nil)
	src2 = mustAdd(t, s, gen(2), hourly("p", ramp(48, 2)), nil)
	if _, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), nil); err != nil {
		t.Fatal(err)
	}
	if n, err := s.TransformSingleTimeSeries(Hours(8), Hours(8), &TransformFilter{Resolution: ptr(Hours(1))}); err != nil || n != 2 {
		t.Fatalf("second transform: %d, %v", n, err)
	}
	// Owner 2 keeps one view only: its PT8H one goes, which is always allowed.
	if err := s.Remove(Key{OwnerID: 2, Type: DeterministicSingleTimeSeriesType, Name: "p", Resolution: Hours(1), Interval: Hours(8)}); err != nil {
		t.Fatal(err)
	}
	q = mustAdd(t, s, gen(3), hourly("q", ramp(48, 3)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	return s, path, src1, src2, q
}

// wantViewRefusal checks that err is the refusal naming the source, its view and the remedy.
func wantViewRefusal(t *testing.T, what string, err error, source Key, view Key, remedy string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted", what)
	}
	wantKind(t, err, ErrInvalidParameter)
	for _, frag := range []string{source.String(), view.String(), remedy} {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: %q does not mention %q", what, err, frag)
		}
	}
}

// Removing a SingleTimeSeries that backs a derived forecast is refused on every path that
// could do it, and the store is left exactly as it was: the rule of the other
// implementation, which never writes a view without its source.
func TestRemovingTheSourceOfADerivedForecastIsRefused(t *testing.T) {
	s, path, src1, src2, q := viewStore(t)
	view1 := dstKey(1, Hours(4))
	view2 := dstKey(2, Hours(4))
	first := "remove the derived forecast first"
	before := fileDigests(t, path)
	keysBefore, err := s.ListKeys(KeyFilter{})
	if err != nil {
		t.Fatal(err)
	}

	wantViewRefusal(t, "Remove", s.Remove(src1), src1, view1, first)
	if err := s.Remove(src1); !strings.Contains(err.Error(), dstKey(1, Hours(8)).String()) || !strings.Contains(err.Error(), "remove_time_series") {
		t.Errorf("Remove names every view and the operation: %v", err)
	}
	sts := SingleTimeSeriesType
	_, err = s.RemoveWhere(KeyFilter{Type: &sts})
	wantViewRefusal(t, "RemoveWhere(every SingleTimeSeries)", err, src1, view1, first)
	if !strings.Contains(err.Error(), "2 of the series selected") || !strings.Contains(err.Error(), "remove_where") {
		t.Errorf("RemoveWhere says how many sources it would orphan: %v", err)
	}
	_, err = s.RemoveWhere(KeyFilter{OwnerID: ptr(int64(2)), Name: ptr("p"), Type: &sts})
	wantViewRefusal(t, "RemoveWhere(owner 2's source)", err, src2, view2, first)
	// A view of another interval left behind is still a view without its source.
	_, err = s.RemoveWhere(KeyFilter{OwnerID: ptr(int64(1)), Interval: nil, Resolution: ptr(Hours(1)), Name: ptr("p"), Type: &sts})
	wantViewRefusal(t, "RemoveWhere(owner 1's source)", err, src1, view1, first)

	// A batch of removes (one transaction): the refused call undoes itself only, the rest of
	// the transaction stands or falls with it.
	if err := s.InTransaction(func() error {
		if err := s.Remove(q); err != nil {
			return err
		}
		wantViewRefusal(t, "Remove in a transaction", s.Remove(src2), src2, view2, first)
		return errRollBack
	}); err != errRollBack {
		t.Fatalf("transaction: %v", err)
	}

	// Moves that would take the source out of its family, or a view away from its source.
	_, err = s.RenameSeries(src1, "p2")
	wantViewRefusal(t, "RenameSeries(source)", err, src1, view1, first)
	_, err = s.RenameSeries(view1, "p2")
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "without its source") {
		t.Errorf("RenameSeries(view): %v", err)
	}
	_, err = s.CopySeries(view1, gen(5), "")
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "without its source") || !strings.Contains(err.Error(), "derive the forecast again") {
		t.Errorf("CopySeries(view): %v", err)
	}
	// Owner 3's "q" has the same array as no view: copying a view onto it is refused too.
	_, err = s.CopySeries(view1, gen(3), "q")
	wantKind(t, err, ErrInvalidParameter)

	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if after := fileDigests(t, path); after != before {
		t.Fatal("a refused removal changed the files")
	}
	keysAfter, err := s.ListKeys(KeyFilter{})
	if err != nil || len(keysAfter) != len(keysBefore) {
		t.Fatalf("keys after the refusals: %v (%v), want %v", keysAfter, err, keysBefore)
	}
	fc := mustGetForecast(t, s, view1)
	if w, _ := fc.Window(11); !equalFloats(floats(t, w), ramp(48, 1)[44:48]) {
		t.Fatal("the derived forecast reads differently after the refusals")
	}

	// What is allowed: a rename to the same name, a copy of the source and then of its view
	// to the same owner, and an owner move, which takes the whole family along.
	if _, err := s.RenameSeries(src1, "p"); err != nil {
		t.Errorf("renaming to the same name: %v", err)
	}
	if _, err := s.CopySeries(src1, gen(5), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CopySeries(view1, gen(5), ""); err != nil {
		t.Errorf("copying a view to where its source was copied: %v", err)
	}
	if n, err := s.ReplaceOwnerID(Component, 5, 6); n != 2 || err != nil {
		t.Errorf("moving an owner with a source and its view: %d, %v", n, err)
	}
	if _, err := s.GetWindow(dstKey(6, Hours(4)), t0); err != nil {
		t.Errorf("the moved view: %v", err)
	}
}

var errRollBack = newErr(ErrInvalidParameter, "test", ArgNone, "roll back")

// Removing the source together with its views in one call, or the views first, works; so do
// the owner-wide and store-wide clears, which take sources and views together.
func TestRemovingASourceWithItsDerivedForecasts(t *testing.T) {
	s, path, src1, src2, q := viewStore(t)
	// Owner 1's "p" and both its views, selected by one filter.
	if n, err := s.RemoveWhere(KeyFilter{OwnerID: ptr(int64(1)), Name: ptr("p")}); n != 3 || err != nil {
		t.Fatalf("RemoveWhere(source and views): %d, %v", n, err)
	}
	if ok, _ := s.Has(src1); ok {
		t.Fatal("the source is still stored")
	}
	if keys, _ := s.ListKeys(KeyFilter{OwnerID: ptr(int64(1))}); len(keys) != 0 {
		t.Fatalf("owner 1 still has %v", keys)
	}
	// Owner 2: the view first, then the source, one call each.
	if err := s.Remove(dstKey(2, Hours(4))); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(src2); err != nil {
		t.Fatalf("removing a source whose view is gone: %v", err)
	}
	if err := s.Remove(q); err != nil {
		t.Fatalf("removing a series without views: %v", err)
	}
	s.Close()
	// The last references gone, the columns are freed.
	for i, slot := range hashSlots(t, path, "sts_f64_s_48_PT1H")[:3] {
		if slot != "" {
			t.Errorf("column %d not freed: %q", i, slot)
		}
	}

	s, _, _, _, _ = viewStore(t)
	if n, err := s.ClearOwner(1, Component); n != 3 || err != nil {
		t.Fatalf("ClearOwner(source and views): %d, %v", n, err)
	}
	if n, err := s.Clear(); n != 3 || err != nil { // owner 2's source and view, owner 3's q
		t.Fatalf("Clear: %d, %v", n, err)
	}
}
