package main

import (
	"fmt"
	"math"
	"time"

	"github.com/tsstore/tsstore/core"
)

// Day-ahead market windows: 48 hours of hourly values starting every day.
const (
	windowHours = 48
	windows     = (hoursPerYear-windowHours)/24 + 1 // 364
	windPlants  = 200
)

type forecastSummary struct {
	wind, prob, derived      int
	batchTime, transformTime time.Duration
}

// windForecast is plant p's day-ahead forecast: window w, hour h.
func windForecast(p, w, h int) float64 {
	return 50 + 40*math.Sin(float64(w)/9+float64(p)) + 0.5*float64(h)
}

// addForecasts stores dense wind forecasts in one batch, and derives day-ahead views over
// every hourly series already stored (catalog rows only).
func addForecasts(s *core.Store) (forecastSummary, error) {
	var sum forecastSummary
	began := time.Now()
	var items []core.BatchItem
	for p := 0; p < windPlants; p++ {
		v := make([]float64, windowHours*windows) // [H, count]: v[h*windows + w]
		for h := 0; h < windowHours; h++ {
			for w := 0; w < windows; w++ {
				v[h*windows+w] = windForecast(p, w, h)
			}
		}
		owner := core.Owner{ID: int64(7000 + p), Type: "RenewableDispatch", Category: core.Component}
		items = append(items, core.BatchItem{Owner: owner, Options: &core.AddOptions{Units: "MW"},
			Series: &core.Deterministic{Name: "max_active_power", InitialTimestamp: start, Resolution: core.Hours(1),
				Horizon: core.Hours(windowHours), Interval: core.Days(1), Count: windows, Data: core.ArrayOf(v, windowHours, windows)}})
		if p%10 == 0 {
			// Every tenth plant also has quantiles: [P, H, count].
			q := make([]float64, 3*windowHours*windows)
			for i := range q {
				q[i] = v[i%len(v)] * (0.8 + 0.2*float64(i/len(v)))
			}
			items = append(items, core.BatchItem{Owner: owner, Series: &core.Probabilistic{Name: "max_active_power",
				InitialTimestamp: start, Resolution: core.Hours(1), Horizon: core.Hours(windowHours), Interval: core.Days(1),
				Count: windows, Percentiles: []float64{0.1, 0.5, 0.9}, Data: core.ArrayOf(q, 3, windowHours, windows)}})
			sum.prob++
		}
	}
	if _, err := s.AddBatch(items); err != nil {
		return sum, err
	}
	sum.wind, sum.batchTime = windPlants, time.Since(began)
	began = time.Now()
	hourly := core.Hours(1)
	n, err := s.TransformSingleTimeSeries(core.Hours(windowHours), core.Days(1), &core.TransformFilter{Resolution: &hourly})
	if err != nil {
		return sum, err
	}
	sum.derived, sum.transformTime = n, time.Since(began)
	return sum, nil
}

type sweepSummary struct {
	components, windows int
	elapsed             time.Duration
}

// sweepForecasts runs a simulation's read loop: at each day, the day-ahead window of every
// generator (views over their hourly years) and every wind plant (dense forecasts), through
// one ForecastReader, checking every value against what was written.
func sweepForecasts(s *core.Store, gens []core.Key, fc forecastSummary) (sweepSummary, error) {
	keys := make([]core.Key, 0, len(gens)+fc.wind)
	for _, g := range gens {
		k := g
		k.Type, k.Interval = core.AbstractDeterministicType, core.Days(1)
		keys = append(keys, k)
	}
	for p := 0; p < fc.wind; p++ {
		keys = append(keys, core.Key{OwnerID: int64(7000 + p), Type: core.AbstractDeterministicType,
			Name: "max_active_power", Resolution: core.Hours(1), Interval: core.Days(1)})
	}
	rd, err := s.NewForecastReader(core.AbstractDeterministicType, core.Hours(1), core.Lookups(keys))
	if err != nil {
		return sweepSummary{}, err
	}
	defer rd.Close()
	profiles := make([][]float64, len(gens))
	for i := range gens {
		profiles[i] = profile(int64(1000+i), 100+float64(i%50))
	}
	began := time.Now()
	var checking time.Duration
	for w := 0; w < windows; w++ {
		if err := rd.Read(start.AddDate(0, 0, w)); err != nil {
			return sweepSummary{}, err
		}
		c := time.Now()
		g := rd.Groups()[0] // one group: every key is f64, scalar, 48 steps
		vals, _ := core.Values[float64](g.Values)
		for j, ki := range g.Keys {
			for h := 0; h < windowHours; h++ {
				want := 0.0
				if ki < len(gens) {
					want = profiles[ki][24*w+h]
				} else {
					want = windForecast(ki-len(gens), w, h)
				}
				if got := vals[j*windowHours+h]; got != want {
					return sweepSummary{}, fmt.Errorf("%s window %d hour %d reads %v, wrote %v", keys[ki], w, h, got, want)
				}
			}
		}
		checking += time.Since(c)
	}
	return sweepSummary{len(keys), windows, time.Since(began) - checking}, nil
}
