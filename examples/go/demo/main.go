// Command demo writes a realistic sample store — a year of hourly data for a fleet of
// generators, load scenarios told apart by features, daily quadratic cost curves and a few
// irregular outage records — reads it back, checks what it read and prints a summary.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/tsstore/tsstore/core"
)

func main() {
	out := flag.String("out", filepath.Join("out", "sample_system.nc"), "NetCDF path of the store to write (its .sqlite goes beside it)")
	gens := flag.Int("generators", 1000, "number of generators with a year of hourly data")
	flag.Parse()
	if err := run(*out, *gens); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

var start = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

const hoursPerYear = 8760

func profile(id int64, scale float64) []float64 {
	v := make([]float64, hoursPerYear)
	for h := range v {
		day := 2 * math.Pi * float64(h%24) / 24
		season := 2 * math.Pi * float64(h) / hoursPerYear
		v[h] = scale * (0.6 + 0.25*math.Sin(day-float64(id%7)) + 0.15*math.Cos(season))
	}
	return v
}

func run(path string, gens int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// The demo owns its output: replace a store it wrote before.
	os.Remove(path)
	os.Remove(core.CatalogPath(path))
	s, err := core.Create(path, nil)
	if err != nil {
		return err
	}
	defer s.Close()

	began := time.Now()
	var keys []core.Key
	for g := 0; g < gens; g++ {
		id := int64(1000 + g)
		k, err := s.Add(core.Owner{ID: id, Type: "ThermalStandard", Category: core.Component},
			&core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: start,
				Resolution: core.Hours(1), Data: core.ArrayOf(profile(id, 100+float64(g%50)))},
			&core.AddOptions{Units: "MW"})
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	staticTime := time.Since(began)

	// Load forecasts under two scenarios: the same owner and name, told apart by features.
	for l := 0; l < 50; l++ {
		for _, sc := range []string{"high", "low"} {
			scale := 80.0
			if sc == "high" {
				scale = 120
			}
			_, err := s.Add(core.Owner{ID: int64(5000 + l), Type: "PowerLoad", Category: core.Component},
				&core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: start,
					Resolution: core.Hours(1), Data: core.ArrayOf(profile(int64(l), scale))},
				&core.AddOptions{Units: "MW", Features: core.Features{"scenario": core.Str(sc), "model_year": core.Int(2030)}})
			if err != nil {
				return err
			}
		}
	}

	// Daily quadratic cost curves: three coefficients per step, element shape [3].
	for g := 0; g < 100; g++ {
		coeffs := make([]float64, 365*3)
		for d := 0; d < 365; d++ {
			coeffs[3*d], coeffs[3*d+1], coeffs[3*d+2] = 0.01*float64(g%5+1), 20+float64(d%30), 150
		}
		_, err := s.Add(core.Owner{ID: int64(1000 + g), Type: "ThermalStandard", Category: core.Component},
			&core.SingleTimeSeries{Name: "variable_cost", InitialTimestamp: start, Resolution: core.Days(1),
				Data: core.ArrayOf(coeffs, 365, 3)},
			&core.AddOptions{Ext: `{"function_type":"QuadraticFunctionData"}`})
		if err != nil {
			return err
		}
	}

	// Irregular outage records for a few lines.
	for l := 0; l < 10; l++ {
		var stamps []time.Time
		var derate []float64
		for e := 0; e < 5+l; e++ {
			stamps = append(stamps, start.Add(time.Duration(e*731+l*17)*time.Hour+time.Duration(l)*time.Minute))
			derate = append(derate, float64((e+l)%4)*0.25)
		}
		_, err := s.Add(core.Owner{ID: int64(9000 + l), Type: "Line", Category: core.Component},
			&core.NonSequentialTimeSeries{Name: "outage", Timestamps: stamps, Data: core.ArrayOf(derate)}, nil)
		if err != nil {
			return err
		}
	}
	fc, err := addForecasts(s)
	if err != nil {
		return err
	}
	if err := s.Flush(); err != nil {
		return err
	}
	writeTime := time.Since(began)

	// Read back: every generator's year, checked against what was written.
	began = time.Now()
	for i, k := range keys {
		ts, err := s.Get(k)
		if err != nil {
			return err
		}
		got, _ := core.Values[float64](ts.(*core.SingleTimeSeries).Data)
		want := profile(int64(1000+i), 100+float64(i%50))
		for h := range want {
			if got[h] != want[h] {
				return fmt.Errorf("%s: step %d reads %v, wrote %v", k, h, got[h], want[h])
			}
		}
	}
	readTime := time.Since(began)

	week, err := s.GetRange(keys[0], start.Add(24*time.Hour*180), start.Add(24*time.Hour*187-time.Hour))
	if err != nil {
		return err
	}
	high, err := s.ListKeys(core.KeyFilter{Features: core.Features{"scenario": core.Str("high")}})
	if err != nil {
		return err
	}
	all, err := s.ListMetadata(core.KeyFilter{})
	if err != nil {
		return err
	}
	byType := map[core.SeriesType]int{}
	for _, m := range all {
		byType[m.Type]++
	}
	sweep, err := sweepForecasts(s, keys, fc)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	ncInfo, _ := os.Stat(path)
	catInfo, _ := os.Stat(core.CatalogPath(path))

	fmt.Printf("tsstore demo store: %s (+ %s)\n", path, filepath.Base(core.CatalogPath(path)))
	fmt.Printf("  format %s, compression %s\n", core.DataFormatVersion, core.DefaultCompression)
	fmt.Printf("  series: %d SingleTimeSeries, %d NonSequentialTimeSeries, %d Deterministic, %d DeterministicSingleTimeSeries, %d Probabilistic\n",
		byType[core.SingleTimeSeriesType], byType[core.NonSequentialTimeSeriesType], byType[core.DeterministicType],
		byType[core.DeterministicSingleTimeSeriesType], byType[core.ProbabilisticType])
	fmt.Printf("  %d generators × %d hourly steps added one at a time in %v (%.0f µs per series)\n",
		gens, hoursPerYear, staticTime.Round(time.Millisecond), float64(staticTime.Microseconds())/float64(gens))
	fmt.Printf("  all writes + flush: %v; read back and verified %d years in %v (%.0f µs per series)\n",
		writeTime.Round(time.Millisecond), len(keys), readTime.Round(time.Millisecond),
		float64(readTime.Microseconds())/float64(len(keys)))
	fmt.Printf("  one week of %s: %d steps from %s\n", keys[0].Name, week.(*core.SingleTimeSeries).Data.Len(),
		week.(*core.SingleTimeSeries).InitialTimestamp.Format(time.RFC3339))
	fmt.Printf("  series with scenario=high: %d\n", len(high))
	fmt.Printf("  forecasts: %d wind Deterministic + %d Probabilistic in one batch (%v); %d day-ahead views derived in %v\n",
		fc.wind, fc.prob, fc.batchTime.Round(time.Millisecond), fc.derived, fc.transformTime.Round(time.Millisecond))
	fmt.Printf("  ForecastReader: %d components × %d windows of 48 h in %v (%.2f µs per component-window), verified\n",
		sweep.components, sweep.windows, sweep.elapsed.Round(time.Millisecond),
		float64(sweep.elapsed.Nanoseconds())/1e3/float64(sweep.components*sweep.windows))
	fmt.Printf("  files: %.1f MiB NetCDF, %.1f MiB catalog\n",
		float64(ncInfo.Size())/(1<<20), float64(catInfo.Size())/(1<<20))
	return nil
}
