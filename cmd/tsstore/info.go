package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/tsstore/tsstore/core"
)

func init() {
	register(&command{
		name:     "info",
		synopsis: "tsstore info [--format text|json] [--reclaimable] STORE.nc",
		summary:  "summarise a store: format, sizes, series, owners, grids, shared arrays",
		help: `Prints the store's format version, compression, the sizes of both files, the series
counted by type, the owners (per category and owner type: distinct ids and series),
the resolutions and forecast intervals, the static grids and forecast window
parameters, the arrays shared by more than one series, and the associations.

Reclaimable space (free packed columns, dead standalone variables, unreachable
feature sets) is only known to core's Compact, which writes; --reclaimable runs it on
a temporary copy of both files (costs their size in disk and time), so the store
itself is still opened read-only and left untouched.

Example:
  tsstore info system.nc
  tsstore info --format json --reclaimable system.nc | jq .series`,
		run: runInfo,
	})
}

type infoReport struct {
	Path          string              `json:"path"`
	FormatVersion string              `json:"format_version"`
	Compression   string              `json:"compression"`
	NetCDFBytes   int64               `json:"netcdf_bytes"`
	CatalogBytes  int64               `json:"catalog_bytes"`
	Series        int                 `json:"series"`
	ByType        map[string]int      `json:"series_by_type"`
	Arrays        int                 `json:"distinct_arrays"`
	Owners        []ownerSummary      `json:"owners"`
	Resolutions   []string            `json:"resolutions"`
	Intervals     []string            `json:"intervals"`
	StaticGrids   []gridSummary       `json:"static_grids"`
	Forecasts     []forecastSummary   `json:"forecast_parameters"`
	SharedArrays  int                 `json:"shared_arrays"`
	SharingSeries int                 `json:"series_on_shared_arrays"`
	Supplemental  supplementalSummary `json:"supplemental_associations"`
	ParentChild   parentChildSummary  `json:"parent_child_associations"`
	Reclaimable   *reclaimable        `json:"reclaimable"` // null unless --reclaimable
}

type ownerSummary struct {
	Category  string `json:"category"`
	OwnerType string `json:"owner_type"`
	IDs       int    `json:"ids"`
	Series    int    `json:"series"`
}

type gridSummary struct {
	Resolution       string `json:"resolution"`
	InitialTimestamp string `json:"initial_timestamp"`
	Length           int    `json:"length"`
	Series           int    `json:"series"`
	Owners           int    `json:"owners"`
}

type forecastSummary struct {
	Type             string `json:"type"`
	InitialTimestamp string `json:"initial_timestamp"`
	Resolution       string `json:"resolution"`
	Horizon          string `json:"horizon"`
	Interval         string `json:"interval"`
	Count            int    `json:"count"`
	Series           int    `json:"series"`
}

type supplementalSummary struct {
	Rows       int `json:"rows"`
	Components int `json:"components"`
	Attributes int `json:"attributes"`
}

type parentChildSummary struct {
	Rows     int `json:"rows"`
	Parents  int `json:"parents"`
	Children int `json:"children"`
}

type reclaimable struct {
	FreePackedColumns   int `json:"free_packed_columns"`
	DeadStandalone      int `json:"dead_standalone_variables"`
	UnreachableFeatures int `json:"unreachable_feature_sets"`
}

func runInfo(e *env, args []string) error {
	fs := e.newFlags()
	format := addFormatFlag(fs, "text", "json")
	withReclaimable := fs.Bool("reclaimable", false, "also report reclaimable space, by compacting a temporary copy")
	s, path, err := e.parseAndOpen(fs, args, format)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := gatherInfo(s, path)
	if err != nil {
		return err
	}
	if *withReclaimable {
		if rep.Reclaimable, err = reclaimableOfCopy(path); err != nil {
			return err
		}
	}
	if format.value == "json" {
		return writeJSON(e.stdout, rep)
	}
	return writeInfoText(e.stdout, rep)
}

func gatherInfo(s *core.Store, path string) (*infoReport, error) {
	all := core.KeyFilter{}
	rep := &infoReport{Path: path, FormatVersion: core.DataFormatVersion, Compression: s.Compression().String(),
		ByType: map[string]int{}, Resolutions: []string{}, Intervals: []string{}}
	var err error
	if rep.NetCDFBytes, err = fileSize(path); err != nil {
		return nil, err
	}
	if rep.CatalogBytes, err = fileSize(core.CatalogPath(path)); err != nil {
		return nil, err
	}
	counts, err := s.CountsByType(all)
	if err != nil {
		return nil, err
	}
	for t, n := range counts {
		rep.ByType[t.String()] = n
		rep.Series += n
	}
	if rep.Arrays, err = s.CountArrays(all); err != nil {
		return nil, err
	}
	if rep.Owners, err = ownerSummaries(s); err != nil {
		return nil, err
	}
	if err := addPeriods(s, rep); err != nil {
		return nil, err
	}
	if err := addGrids(s, rep); err != nil {
		return nil, err
	}
	groups, err := s.ArrayGroups(all, true)
	if err != nil {
		return nil, err
	}
	rep.SharedArrays = len(groups)
	for _, g := range groups {
		rep.SharingSeries += len(g.Keys)
	}
	sup, err := s.SupplementalAssociationCounts()
	if err != nil {
		return nil, err
	}
	rep.Supplemental = supplementalSummary{Rows: sup.Rows, Components: sup.DistinctA, Attributes: sup.DistinctB}
	pc, err := s.ParentChildAssociationCounts()
	if err != nil {
		return nil, err
	}
	rep.ParentChild = parentChildSummary{Rows: pc.Rows, Parents: pc.DistinctA, Children: pc.DistinctB}
	return rep, nil
}

func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// ownerSummaries counts distinct owner ids and series per (category, owner type): an
// owner's identity is its id within a category, the type is a label.
func ownerSummaries(s *core.Store) ([]ownerSummary, error) {
	out := []ownerSummary{}
	for _, c := range []core.OwnerCategory{core.Component, core.SupplementalAttribute} {
		types, err := s.ListOwnerTypes(core.KeyFilter{OwnerCategory: &c})
		if err != nil {
			return nil, err
		}
		for _, t := range types {
			f := core.KeyFilter{OwnerCategory: &c, OwnerType: &t}
			ids, err := s.ListOwnerIDs(f)
			if err != nil {
				return nil, err
			}
			counts, err := s.CountsByType(f)
			if err != nil {
				return nil, err
			}
			n := 0
			for _, k := range counts {
				n += k
			}
			out = append(out, ownerSummary{Category: c.String(), OwnerType: t, IDs: len(ids), Series: n})
		}
	}
	return out, nil
}

func addPeriods(s *core.Store, rep *infoReport) error {
	res, err := s.Resolutions(core.KeyFilter{})
	if err != nil {
		return err
	}
	for _, p := range res {
		rep.Resolutions = append(rep.Resolutions, p.String())
	}
	ivs, err := s.Intervals(core.KeyFilter{})
	if err != nil {
		return err
	}
	for _, p := range ivs {
		rep.Intervals = append(rep.Intervals, p.String())
	}
	return nil
}

func addGrids(s *core.Store, rep *infoReport) error {
	grids, err := s.StaticSummary(core.KeyFilter{})
	if err != nil {
		return err
	}
	rep.StaticGrids = []gridSummary{}
	for _, g := range grids {
		rep.StaticGrids = append(rep.StaticGrids, gridSummary{Resolution: g.Resolution.String(),
			InitialTimestamp: formatTime(g.InitialTimestamp), Length: g.Length, Series: g.Series, Owners: g.Owners})
	}
	params, err := s.ForecastSummary(core.KeyFilter{})
	if err != nil {
		return err
	}
	rep.Forecasts = []forecastSummary{}
	for _, p := range params {
		rep.Forecasts = append(rep.Forecasts, forecastSummary{Type: p.Type.String(),
			InitialTimestamp: formatTime(p.InitialTimestamp), Resolution: p.Resolution.String(),
			Horizon: p.Horizon.String(), Interval: p.Interval.String(), Count: p.Count, Series: p.Series})
	}
	return nil
}

// reclaimableOfCopy compacts a temporary copy of the store: core reports free columns and
// dead variables only from Compact, which needs write access the original is not given.
func reclaimableOfCopy(path string) (*reclaimable, error) {
	dir, err := os.MkdirTemp("", "tsstore-info-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, filepath.Base(path))
	if err := copyFile(path, cp); err != nil {
		return nil, err
	}
	if err := copyFile(core.CatalogPath(path), core.CatalogPath(cp)); err != nil {
		return nil, err
	}
	s, err := core.Open(cp)
	if err != nil {
		return nil, err
	}
	rep, err := s.Compact(nil)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return &reclaimable{FreePackedColumns: rep.SlotsReclaimed, DeadStandalone: rep.DeadStandalone,
		UnreachableFeatures: rep.FeatureSetsReclaimed}, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeInfoText(w io.Writer, r *infoReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "store\t%s\n", r.Path)
	fmt.Fprintf(tw, "format version\t%s\n", r.FormatVersion)
	fmt.Fprintf(tw, "compression\t%s\n", r.Compression)
	fmt.Fprintf(tw, "netcdf file\t%s\n", humanBytes(r.NetCDFBytes))
	fmt.Fprintf(tw, "catalog file\t%s\n", humanBytes(r.CatalogBytes))
	fmt.Fprintf(tw, "series\t%d (%d distinct arrays)\n", r.Series, r.Arrays)
	for _, t := range seriesTypeNames() {
		if n, ok := r.ByType[t]; ok {
			fmt.Fprintf(tw, "  %s\t%d\n", t, n)
		}
	}
	fmt.Fprintf(tw, "owners\t%d owner types\n", len(r.Owners))
	for _, o := range r.Owners {
		fmt.Fprintf(tw, "  %s %s\t%d ids, %d series\n", o.Category, o.OwnerType, o.IDs, o.Series)
	}
	fmt.Fprintf(tw, "resolutions\t%s\n", listOrNone(r.Resolutions))
	fmt.Fprintf(tw, "intervals\t%s\n", listOrNone(r.Intervals))
	fmt.Fprintf(tw, "static grids\t%d\n", len(r.StaticGrids))
	for _, g := range r.StaticGrids {
		fmt.Fprintf(tw, "  %s from %s\t%d steps, %d series, %d owners\n", g.Resolution, g.InitialTimestamp, g.Length, g.Series, g.Owners)
	}
	fmt.Fprintf(tw, "forecast windows\t%d parameter sets\n", len(r.Forecasts))
	for _, f := range r.Forecasts {
		fmt.Fprintf(tw, "  %s\t%d × %s every %s at %s from %s, %d series\n", f.Type, f.Count, f.Horizon, f.Interval,
			f.Resolution, f.InitialTimestamp, f.Series)
	}
	fmt.Fprintf(tw, "shared arrays\t%d, referenced by %d series\n", r.SharedArrays, r.SharingSeries)
	fmt.Fprintf(tw, "supplemental associations\t%d (%d components, %d attributes)\n", r.Supplemental.Rows,
		r.Supplemental.Components, r.Supplemental.Attributes)
	fmt.Fprintf(tw, "parent/child associations\t%d (%d parents, %d children)\n", r.ParentChild.Rows,
		r.ParentChild.Parents, r.ParentChild.Children)
	if r.Reclaimable != nil {
		fmt.Fprintf(tw, "reclaimable\t%d free packed columns, %d dead standalone variables, %d unreachable feature sets\n",
			r.Reclaimable.FreePackedColumns, r.Reclaimable.DeadStandalone, r.Reclaimable.UnreachableFeatures)
	} else {
		fmt.Fprintf(tw, "reclaimable\tnot computed (needs --reclaimable: core reports it only from Compact)\n")
	}
	return tw.Flush()
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB (%d bytes)", float64(n)/float64(div), "KMGTPE"[exp], n)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
