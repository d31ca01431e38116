package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tsstore/tsstore/core"
)

// newFlags makes a command's flag set. Its own error printing is silenced: parse reports
// a bad flag as one usage line instead of the flag package's multi-line dump.
func (e *env) newFlags() *flag.FlagSet {
	fs := flag.NewFlagSet(e.cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse reads flags placed anywhere among the positional arguments (so both
// "ls --format csv s.nc" and "ls s.nc --format csv" work) and checks the count of
// positionals. --help prints the command's help to stdout.
func (e *env) parse(fs *flag.FlagSet, args []string, minPos, maxPos int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				e.printHelp(fs)
				return nil, errHelpShown
			}
			return nil, usagef("%v (see tsstore %s --help)", err, e.cmd.name)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < minPos || len(pos) > maxPos {
		return nil, usagef("wrong number of arguments; usage: %s", e.cmd.synopsis)
	}
	if len(pos) > 0 {
		if nc, ok := catalogGiven(pos[0]); ok {
			return nil, usagef("%s is the catalog half of a store: pass its NetCDF file %s (a store is named by its .nc; the .nc.sqlite beside it is found from that)", pos[0], nc)
		}
	}
	return pos, nil
}

// catalogGiven says whether path names the catalog of a store (STORE.nc.sqlite) where the
// store's .nc is wanted, and returns that .nc. A store whose own name ends in .sqlite (its
// catalog beside it) is not mistaken for one.
func catalogGiven(path string) (string, bool) {
	nc, ok := strings.CutSuffix(path, core.CatalogSuffix)
	if !ok || nc == "" {
		return "", false
	}
	if _, err := os.Stat(core.CatalogPath(path)); err == nil {
		return "", false // path is a store's .nc that happens to end in .sqlite
	}
	if _, err := os.Stat(nc); err == nil || strings.HasSuffix(nc, ".nc") {
		return nc, true
	}
	return "", false
}

func (e *env) printHelp(fs *flag.FlagSet) {
	w := e.stdout
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", e.cmd.synopsis, strings.TrimSpace(e.cmd.help))
	first := true
	// Listed with the "--" spelling the help texts use (flag.PrintDefaults writes one dash).
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nFlags:")
			first = false
		}
		arg, usage := flag.UnquoteUsage(f)
		if arg != "" {
			arg = " " + arg
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" {
			def = fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintf(w, "  --%s%s\n        %s%s\n", f.Name, arg, usage, def)
	})
}

// filterFlags are the library's key filters (core.KeyFilter) as flags.
type filterFlags struct {
	ownerID, category, typ, name, glob, ownerType, resolution, interval, features string
	exactFeatures                                                                 bool
}

// selection is a key filter plus what core's filter cannot say: features equal to, not
// merely including, the given ones (so '{}' --exact-features selects featureless series).
type selection struct {
	filter core.KeyFilter
	exact  bool
}

// list returns the catalog records the selection matches, in insertion order.
func (sel selection) list(s *core.Store) ([]core.Metadata, error) {
	metas, err := s.ListMetadata(sel.filter)
	if err != nil || !sel.exact {
		return metas, err
	}
	kept := metas[:0]
	for _, m := range metas {
		if m.Features.Equal(sel.filter.Features) {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

func (f *filterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.ownerID, "owner-id", "", "only series of this owner `id`")
	fs.StringVar(&f.category, "category", "", "only owners of this `category`: Component or SupplementalAttribute")
	fs.StringVar(&f.typ, "type", "", "only series of this `type`: "+strings.Join(seriesTypeNames(), ", "))
	fs.StringVar(&f.name, "name", "", "only series with exactly this `name`")
	fs.StringVar(&f.glob, "glob", "", "only series whose name matches this SQLite GLOB `pattern`, e.g. 'max_*'")
	fs.StringVar(&f.ownerType, "owner-type", "", "only owners of this concrete `type` name, e.g. ThermalStandard")
	fs.StringVar(&f.resolution, "resolution", "", "only series at this ISO-8601 `period`, e.g. PT1H")
	fs.StringVar(&f.interval, "interval", "", "only forecasts with this ISO-8601 window `period`, e.g. P1D")
	fs.StringVar(&f.features, "features", "", "only series whose features include this flat JSON `object`, e.g. '{\"scenario\":\"high\"}'")
	fs.BoolVar(&f.exactFeatures, "exact-features", false, "with --features: only series whose features are exactly those ('{}': no features)")
}

// selection builds the selection; a malformed flag value is a usage error naming it.
func (f *filterFlags) selection() (selection, error) {
	kf, err := f.filter()
	if err != nil {
		return selection{}, err
	}
	if f.exactFeatures && f.features == "" {
		return selection{}, usagef("--exact-features needs --features (e.g. --features '{}' for series without features)")
	}
	return selection{filter: kf, exact: f.exactFeatures}, nil
}

func (f *filterFlags) filter() (core.KeyFilter, error) {
	kf := core.KeyFilter{Name: given(&f.name), NameGlob: given(&f.glob), OwnerType: given(&f.ownerType)}
	err := firstError(
		parseGiven(&kf.OwnerID, "--owner-id", f.ownerID, parseOwnerID),
		parseGiven(&kf.OwnerCategory, "--category", f.category, parseCategory),
		parseGiven(&kf.Type, "--type", f.typ, parseSeriesType),
		parseGiven(&kf.Resolution, "--resolution", f.resolution, parsePeriod),
		parseGiven(&kf.Interval, "--interval", f.interval, parsePeriod),
	)
	if err != nil || f.features == "" {
		return kf, err
	}
	kf.Features, err = parseFeatures("--features", f.features)
	return kf, err
}

// given is a flag's value where an optional filter wants it: nil when the flag is not given.
func given(value *string) *string {
	if *value == "" {
		return nil
	}
	return value
}

// parseGiven parses an optional flag's value into *dst, leaving *dst nil when the flag is
// not given; a malformed value is parse's usage error.
func parseGiven[T any](dst **T, flagName, value string, parse func(flagName, s string) (T, error)) error {
	if value == "" {
		return nil
	}
	v, err := parse(flagName, value)
	if err != nil {
		return err
	}
	*dst = &v
	return nil
}

// firstError is the first of errs that is not nil: a run of flag checks reports the flag
// that comes first, as a check-and-return after each would.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func parseOwnerID(flagName, s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, usagef("%s %q: not a whole number", flagName, s)
	}
	return id, nil
}

func parseCategory(flagName, s string) (core.OwnerCategory, error) {
	for _, c := range []core.OwnerCategory{core.Component, core.SupplementalAttribute} {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, usagef("%s %q: want Component or SupplementalAttribute", flagName, s)
}

// seriesTypeNames lists every type a filter accepts, in code order.
func seriesTypeNames() []string {
	var names []string
	for t := core.SeriesType(0); t.Valid(); t++ {
		names = append(names, t.String())
	}
	return names
}

func parseSeriesType(flagName, s string) (core.SeriesType, error) {
	for t := core.SeriesType(0); t.Valid(); t++ {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return 0, usagef("%s %q: not a series type (want one of %s)", flagName, s, strings.Join(seriesTypeNames(), ", "))
}

func parsePeriod(flagName, s string) (core.Period, error) {
	p, err := core.ParsePeriod(s)
	if err != nil {
		return p, usagef("%s %q: not an ISO-8601 period such as PT1H or P1D", flagName, s)
	}
	if !p.IsPositive() {
		return p, usagef("%s %q: must be positive", flagName, s)
	}
	return p, nil
}

func parseTime(flagName, s string) (time.Time, error) {
	t, err := core.ParseTimestamp(s)
	if err != nil {
		return t, usagef("%s %q: not an RFC 3339 timestamp such as 2030-01-01T00:00:00Z", flagName, s)
	}
	return t, nil
}

func parseFeatures(flagName, s string) (core.Features, error) {
	f, err := core.ParseFeaturesJSON(s)
	if err != nil {
		return nil, usagef("%s %q: %s", flagName, s, oneLine(err))
	}
	return f, nil
}

// formatFlag is a --format flag restricted to a list of choices.
type formatFlag struct {
	value   string
	choices []string
}

func addFormatFlag(fs *flag.FlagSet, choices ...string) *formatFlag {
	f := &formatFlag{value: choices[0], choices: choices}
	fs.StringVar(&f.value, "format", choices[0], "output `format`: "+strings.Join(choices, ", "))
	return f
}

func (f *formatFlag) check() error {
	for _, c := range f.choices {
		if f.value == c {
			return nil
		}
	}
	return usagef("--format %q: want one of %s", f.value, strings.Join(f.choices, ", "))
}

// formatTime writes an instant the way every output of this tool does: RFC 3339 in UTC
// with a Z and the shortest exact fraction, which core.ParseTimestamp reads back.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// openRead opens a store read-only: nothing this tool only reads can change the files.
func openRead(path string) (*core.Store, error) { return core.OpenReadOnly(path) }

// parseAndOpen is the start of every read-only command taking one store: parse the flags
// and the one positional argument, check the output format, then the command's own checks
// in order, and open the store read-only. Every mistake on the command line is reported
// before the store is opened: a usage error does not depend on the store's state.
func (e *env) parseAndOpen(fs *flag.FlagSet, args []string, format *formatFlag, checks ...func() error) (*core.Store, string, error) {
	pos, err := e.parse(fs, args, 1, 1)
	if err != nil {
		return nil, "", err
	}
	for _, check := range append([]func() error{format.check}, checks...) {
		if err := check(); err != nil {
			return nil, "", err
		}
	}
	s, err := openRead(pos[0])
	return s, pos[0], err
}

// spanFlags are --start and --end: the part of a static series to read.
type spanFlags struct{ start, end string }

// register adds the two flags; what ends their usage ("to export").
func (f *spanFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&f.start, "start", "", "first `timestamp` (RFC 3339) "+what)
	fs.StringVar(&f.end, "end", "", "last `timestamp` (RFC 3339) "+what)
}

// times parses the flags given; one not given is nil.
func (f *spanFlags) times() (from, to *time.Time, err error) {
	err = firstError(parseGiven(&from, "--start", f.start, parseTime), parseGiven(&to, "--end", f.end, parseTime))
	return from, to, err
}
