package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core"
)

// quickstartBuses is how many buses the test's copy of the demo store has; the demo
// (examples/c/quickstart.c, run by make demo) has 500 by default and takes the number as
// its second argument. Everything else is the demo's.
const quickstartBuses = 20

var (
	quickstartOnce sync.Once
	quickstartPath string
	quickstartErr  error
)

// quickstartStore is the store make demo writes (out/quickstart.nc), built once per test
// run through core with the same calls examples/c/quickstart.c makes through the C API: a
// year of hourly demand per bus in one batch, daily quadratic cost curves ([365, 3]) and
// must-run flags (bool) for 50 generators, outage records for 10 lines, day-ahead wind
// forecasts of each kind for 20 plants, and day-ahead views derived over every hourly
// component series. Tests only read it.
func quickstartStore(t *testing.T) string {
	t.Helper()
	quickstartOnce.Do(func() {
		quickstartPath = filepath.Join(filepath.Dir(binPath), "out", "quickstart.nc")
		quickstartErr = writeQuickstart(quickstartPath, quickstartBuses)
	})
	if quickstartErr != nil {
		t.Fatalf("building the demo store: %v", quickstartErr)
	}
	return quickstartPath
}

// The demo's values (quickstart.c: demand, wind).
func qsDemand(bus, h int) float64 {
	hod, day := h%24, h/24
	v := 50.0 + float64(bus%17) + 0.01*float64(day%90)
	if hod >= 7 && hod < 21 {
		v += 20
	}
	if day%7 < 5 {
		v += 5
	}
	return v
}

func qsWind(plant, window, step int) float64 {
	return 10.0 + float64(plant) + 0.5*float64(step) + float64(window%30)
}

const (
	qsHours   = 8760
	qsGens    = 50
	qsPlants  = 20
	qsH       = 48
	qsWindows = (qsHours-qsH)/24 + 1 // 364
)

func writeQuickstart(path string, buses int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	forkMu.Lock()
	defer forkMu.Unlock()
	s, err := core.Create(path, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	comp := func(id int64, typ string) core.Owner { return core.Owner{ID: id, Type: typ, Category: core.Component} }
	ref := &core.AddOptions{Units: "MW", Features: core.Features{"scenario": core.Str("reference")}}
	var items []core.BatchItem
	for b := 0; b < buses; b++ {
		year := make([]float64, qsHours)
		for h := range year {
			year[h] = qsDemand(b, h)
		}
		items = append(items, core.BatchItem{Owner: comp(int64(1000+b), "PowerLoad"), Options: ref,
			Series: &core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1), Data: core.ArrayOf(year)}})
	}
	if _, err := s.AddBatch(items); err != nil {
		return err
	}
	for g := 0; g < qsGens; g++ {
		cost := make([]float64, 365*3)
		for d := 0; d < 365; d++ {
			cost[3*d], cost[3*d+1], cost[3*d+2] = 0.01*float64(g%5+1), 20+float64(d%30), 150
		}
		mustRun := make([]bool, qsHours)
		for h := range mustRun {
			mustRun[h] = h%24 < 6 && g%3 == 0
		}
		owner := comp(int64(5000+g), "ThermalStandard")
		if _, err := s.Add(owner, &core.SingleTimeSeries{Name: "variable_cost", InitialTimestamp: t0, Resolution: core.Days(1),
			Data: core.ArrayOf(cost, 365, 3)}, &core.AddOptions{Units: "$/MWh", Ext: `{"function_type":"QuadraticFunctionData"}`}); err != nil {
			return err
		}
		if _, err := s.Add(owner, &core.SingleTimeSeries{Name: "must_run", InitialTimestamp: t0, Resolution: core.Hours(1),
			Data: core.ArrayOf(mustRun)}, nil); err != nil {
			return err
		}
	}
	day := 24 * time.Hour
	for l := 0; l < 10; l++ {
		base := t0.Add(time.Duration(l*31) * day)
		stamps := []time.Time{base.Add(2 * day), base.Add(2*day + 90*time.Minute), base.Add(9 * day), base.Add(20 * day)}
		if _, err := s.Add(comp(int64(9000+l), "Line"), &core.NonSequentialTimeSeries{Name: "outage", Timestamps: stamps,
			Data: core.ArrayOf([]float64{0.5, 0, 1, 0.25})}, nil); err != nil {
			return err
		}
	}
	for p := 0; p < qsPlants; p++ {
		det := make([]float64, qsH*qsWindows)
		for h := 0; h < qsH; h++ {
			for w := 0; w < qsWindows; w++ {
				det[h*qsWindows+w] = qsWind(p, w, h)
			}
		}
		quant := make([]float64, 3*len(det))
		for q := 0; q < 3; q++ {
			for i, v := range det {
				quant[q*len(det)+i] = v * (0.7 + 0.3*float64(q))
			}
		}
		owner := comp(int64(7000+p), "RenewableDispatch")
		mw := &core.AddOptions{Units: "MW"}
		for _, fc := range []core.TimeSeries{
			&core.Deterministic{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1), Horizon: core.Hours(qsH),
				Interval: core.Days(1), Count: qsWindows, Data: core.ArrayOf(det, qsH, qsWindows)},
			&core.Probabilistic{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1), Horizon: core.Hours(qsH),
				Interval: core.Days(1), Count: qsWindows, Percentiles: []float64{0.1, 0.5, 0.9}, Data: core.ArrayOf(quant, 3, qsH, qsWindows)},
			&core.Scenarios{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1), Horizon: core.Hours(qsH),
				Interval: core.Days(1), Count: qsWindows, Data: core.ArrayOf(quant, 3, qsH, qsWindows)},
		} {
			if _, err := s.Add(owner, fc, mw); err != nil {
				return err
			}
		}
	}
	comp2, hourly := core.Component, core.Hours(1)
	if _, err := s.TransformSingleTimeSeries(core.Hours(qsH), core.Days(1), &core.TransformFilter{OwnerCategory: &comp2, Resolution: &hourly}); err != nil {
		return err
	}
	return s.Close()
}
