package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tsstore/tsstore/core"
)

// selectOne resolves the filters to exactly one series. Without --type, a static series
// (SingleTimeSeries or NonSequentialTimeSeries) is preferred over the forecasts
// transform_single_time_series derived from it: those DeterministicSingleTimeSeries share
// its owner, name, resolution and features, so "--owner-id 7 --name load" would otherwise
// always match two. Any other ambiguity is an error that lists the matches and the flags
// (with their values) that tell them apart.
func selectOne(s *core.Store, sel selection) (*core.Metadata, error) {
	metas, err := sel.list(s)
	if err != nil {
		return nil, err
	}
	switch len(metas) {
	case 0:
		return nil, fmt.Errorf("no series matches the filters (list what there is with tsstore ls)")
	case 1:
		return &metas[0], nil
	}
	if sel.filter.Type == nil {
		if m := sourceOfViews(metas); m != nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%d series match the filters, want exactly one: %s; %s",
		len(metas), listKeys(metas, 4), narrowHint(metas))
}

// sourceOfViews returns the one static series among metas when every other is a
// DeterministicSingleTimeSeries derived from it (same family and array), else nil.
func sourceOfViews(metas []core.Metadata) *core.Metadata {
	var src *core.Metadata
	for i := range metas {
		if t := metas[i].Type; t == core.SingleTimeSeriesType || t == core.NonSequentialTimeSeriesType {
			if src != nil {
				return nil
			}
			src = &metas[i]
		}
	}
	if src == nil {
		return nil
	}
	for i := range metas {
		m := &metas[i]
		if m == src {
			continue
		}
		if m.Type != core.DeterministicSingleTimeSeriesType || m.OwnerID != src.OwnerID ||
			m.OwnerCategory != src.OwnerCategory || m.Name != src.Name || m.Resolution != src.Resolution ||
			m.DataHash != src.DataHash || !m.Features.Equal(src.Features) {
			return nil
		}
	}
	return src
}

// listKeys names the first n keys, and how many more there are.
func listKeys(metas []core.Metadata, n int) string {
	var shown []string
	for i := 0; i < len(metas) && i < n; i++ {
		shown = append(shown, metas[i].Key.String())
	}
	if len(metas) > n {
		shown = append(shown, fmt.Sprintf("and %d more", len(metas)-n))
	}
	return strings.Join(shown, "; ")
}

// narrowHint names the filter flags on which the matches differ, each with the values it
// could take, e.g. "narrow with --type (SingleTimeSeries, DeterministicSingleTimeSeries)".
func narrowHint(metas []core.Metadata) string {
	fields := []struct {
		flag  string
		value func(m *core.Metadata) string
	}{
		{"--type", func(m *core.Metadata) string { return m.Type.String() }},
		{"--owner-id", func(m *core.Metadata) string { return strconv.FormatInt(m.OwnerID, 10) }},
		{"--category", func(m *core.Metadata) string { return m.OwnerCategory.String() }},
		{"--name", func(m *core.Metadata) string { return m.Name }},
		{"--resolution", func(m *core.Metadata) string { return periodText(m.Resolution) }},
		{"--interval", func(m *core.Metadata) string { return periodText(m.Interval) }},
		{"--features", func(m *core.Metadata) string { return "'" + featuresJSON(m.Features) + "'" }},
	}
	var parts []string
	for _, f := range fields {
		seen := map[string]bool{}
		var values []string
		for i := range metas {
			v := f.value(&metas[i])
			if !seen[v] {
				seen[v] = true
				values = append(values, v)
			}
		}
		if len(values) < 2 {
			continue
		}
		if f.flag != "--type" {
			sort.Strings(values)
		}
		if len(values) > 4 {
			values = append(values[:4], "…")
		}
		for i, v := range values {
			if v == "" || v == "''" {
				values[i] = "none"
			}
		}
		hint := f.flag + " (" + strings.Join(values, ", ") + ")"
		if f.flag == "--features" {
			hint += ", with --exact-features"
		}
		parts = append(parts, hint)
	}
	if len(parts) == 0 {
		return "narrow with --owner-id, --type, --name, --resolution, --features, --exact-features"
	}
	return "narrow with " + strings.Join(parts, " or ")
}
