package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	modellerBuses     = flag.Int("modeller-buses", 2000, "modeller: buses with a year of hourly load")
	modellerGens      = flag.Int("modeller-gens", 300, "modeller: generators with a year of daily [3] cost curves")
	modellerForecasts = flag.Int("modeller-forecasts", 100, "modeller: day-ahead forecasts of 365 windows")
	modellerRepeats   = flag.Int("modeller-repeats", 3, "modeller: runs of the whole script, best phase taken")
)

// The modeller workload's phases, in the order the script runs them (bench/calls/modeller.py
// describes each).
var modellerPhases = []struct{ name, what string }{
	{"loads", "batch add + flush of the loads"},
	{"costs", "batch add + flush of the cost curves"},
	{"forecasts", "batch add + flush of the forecasts"},
	{"week", "StaticReader, 168 steps over every load"},
	{"windows", "ForecastReader, every window of every forecast"},
}

const (
	modellerYear     = 8760
	modellerWindows  = 365
	modellerHorizonH = 48
)

// modellerWorkload runs a modeller's script, phase by phase, from Python, Julia and Go on the
// same data, and prints each phase's ratio beside its bar (each binding ≤ 1.3 × Go).
func modellerWorkload(cfg *config) ([]result, error) {
	buses, gens, fcs, reps := *modellerBuses, *modellerGens, *modellerForecasts, max(*modellerRepeats, 1)
	lib, err := filepath.Abs(*callsLibDir)
	if err != nil {
		return nil, err
	}
	pyFigs, err := pythonFigures("modeller", lib, "modeller.py", filepath.Join(cfg.dir, "modeller_py"),
		strconv.Itoa(buses), strconv.Itoa(gens), strconv.Itoa(fcs), strconv.Itoa(reps))
	if err != nil {
		return nil, err
	}
	jlFigs, err := juliaFigures(lib, "modeller.jl", filepath.Join(cfg.dir, "modeller_jl"),
		strconv.Itoa(buses), strconv.Itoa(gens), strconv.Itoa(fcs), strconv.Itoa(reps))
	if err != nil {
		return nil, err
	}
	goFigs := map[string]float64{}
	for r := 0; r < reps; r++ {
		took, err := goModeller(storePath(cfg, "modeller_go"), buses, gens, fcs)
		if err != nil {
			return nil, err
		}
		for k, v := range took {
			if old, ok := goFigs[k]; !ok || v < old {
				goFigs[k] = v
			}
		}
	}
	label := fmt.Sprintf("%d buses × 8,760 h, %d cost curves, %d forecasts × 365 windows, best of %d", buses, gens, fcs, reps)
	var out []result
	for _, p := range modellerPhases {
		g, ok := goFigs[p.name]
		pv, pok := pyFigs[p.name]
		if !ok || !pok {
			return nil, fmt.Errorf("modeller: phase %s has no figure (Go %v, Python %v)", p.name, ok, pok)
		}
		out = append(out,
			result{"modeller", label, p.name + ": " + p.what + ", Go core", g * 1e3, "ms"},
			result{"modeller", label, p.name + ": " + p.what + ", Python", pv * 1e3, "ms"},
			result{"modeller", label, p.name + ": Python / Go (bar: ≤ 1.3)", pv / g, "×"})
		if jv, ok := jlFigs[p.name]; ok {
			out = append(out, result{"modeller", label, p.name + ": " + p.what + ", Julia", jv * 1e3, "ms"},
				result{"modeller", label, p.name + ": Julia / Go (bar: ≤ 1.3)", jv / g, "×"})
		}
	}
	return out, nil
}

// goModeller does modeller.py's work through the core, returning each phase's seconds.
func goModeller(path string, buses, gens, fcs int) (map[string]float64, error) {
	os.Remove(path)
	os.Remove(path + ".sqlite")
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	took := map[string]float64{}
	s, err := core.Create(path, nil)
	if err != nil {
		return nil, err
	}
	phase := func(name string, items []core.BatchItem) ([]core.Key, error) {
		t := time.Now()
		keys, err := s.AddBatch(items)
		if err == nil {
			err = s.Flush()
		}
		took[name] = time.Since(t).Seconds()
		return keys, err
	}
	// Each phase builds its inputs before its clock starts, as modeller.py and modeller.jl
	// do: the phases time the store's work.
	items := make([]core.BatchItem, buses)
	for i := range items {
		v := make([]float64, modellerYear)
		for h := range v {
			v[h] = float64(h%24 + i)
		}
		items[i] = core.BatchItem{Owner: core.Owner{ID: int64(i), Type: "PowerLoad", Category: core.Component},
			Series: &core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1),
				Data: core.ArrayOf(v)}, Options: &core.AddOptions{Units: "MW"}}
	}
	loads, err := phase("loads", items)
	if err != nil {
		s.Close()
		return nil, err
	}
	items = make([]core.BatchItem, gens)
	for i := range items {
		v := make([]float64, 0, modellerWindows*3)
		for d := 0; d < modellerWindows; d++ {
			v = append(v, 1*float64(1+i), 20*float64(1+i), 0.01*float64(1+i))
		}
		items[i] = core.BatchItem{Owner: core.Owner{ID: int64(100_000 + i), Type: "ThermalStandard", Category: core.Component},
			Series: &core.SingleTimeSeries{Name: "variable_cost", InitialTimestamp: t0, Resolution: core.Days(1),
				Data: core.ArrayOf(v, modellerWindows, 3)}}
	}
	if _, err := phase("costs", items); err != nil {
		s.Close()
		return nil, err
	}
	items = make([]core.BatchItem, fcs)
	for i := range items {
		v := make([]float64, modellerHorizonH*modellerWindows)
		for j := range v {
			v[j] = float64(j + i)
		}
		items[i] = core.BatchItem{Owner: core.Owner{ID: int64(200_000 + i), Type: "RenewableDispatch", Category: core.Component},
			Series: &core.Deterministic{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1),
				Horizon: core.Hours(modellerHorizonH), Interval: core.Days(1), Count: modellerWindows,
				Data: core.ArrayOf(v, modellerHorizonH, modellerWindows)}}
	}
	winds, err := phase("forecasts", items)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := goModellerReads(path, loads, winds, took); err != nil {
		return nil, err
	}
	return took, nil
}

// goModellerReads is the script's two read phases on a read-only open.
func goModellerReads(path string, loads, winds []core.Key, took map[string]float64) error {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return err
	}
	defer s.Close()
	t := time.Now()
	sr, err := s.NewStaticReader(core.Hours(1), core.Lookups(loads))
	if err != nil {
		return err
	}
	for h := 0; h < 168; h++ {
		if err := sr.ReadStep(h); err != nil {
			sr.Close()
			return err
		}
	}
	took["week"] = time.Since(t).Seconds()
	g := sr.Groups()[0]
	got, _ := core.Values[float64](g.Values)
	sr.Close()
	if p := slices.Index(g.Keys, 7); p >= 0 && got[p] != float64(167%24+7) {
		return fmt.Errorf("modeller: the StaticReader read %v for bus 7 at hour 167", got[p])
	}
	t = time.Now()
	fr, err := s.NewForecastReader(core.DeterministicType, core.Hours(1), core.Lookups(winds))
	if err != nil {
		return err
	}
	defer fr.Close()
	for w := 0; w < modellerWindows; w++ {
		if err := fr.ReadWindow(w); err != nil {
			return err
		}
	}
	took["windows"] = time.Since(t).Seconds()
	fg := fr.Groups()[0]
	wv, _ := core.Values[float64](fg.Values)
	if p := slices.Index(fg.Keys, 3); p >= 0 {
		want := float64(5*modellerWindows + modellerWindows - 1 + 3) // step 5 of the last window
		if got := wv[p*modellerHorizonH+5]; got != want {
			return fmt.Errorf("modeller: the ForecastReader read %v, want %v", got, want)
		}
	}
	return nil
}
