package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	curveLevels = flag.String("curve-levels", "1000,10000,100000", "curve: SingleTimeSeries stored before each measurement")
	curveLength = flag.Int("curve-length", 168, "curve: steps per series")
	curveAdds   = flag.Int("curve-adds", 2000, "curve: one-at-a-time adds timed at each level")
)

// curveWorkload is the loop modelling packages write (add_time_series! per component): the
// cost of the next one-at-a-time add as the store fills. One store grows through the levels
// (filled in batches between them); at each level it times curveAdds single adds, the
// call alone (the array waits in the write buffer) and with the flush that writes them.
func curveWorkload(cfg *config) ([]result, error) {
	levels, err := parseLevels(*curveLevels)
	if err != nil {
		return nil, err
	}
	length, adds := *curveLength, max(*curveAdds, 1)
	path := storePath(cfg, "curve")
	s, err := core.Create(path, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	next := 0 // owner of the next series
	var out []result
	for _, level := range levels {
		for next < level {
			var items []core.BatchItem
			for ; next < level && len(items) < 10000; next++ {
				items = append(items, core.BatchItem{Owner: gen(next), Series: hourlySeries(next, length)})
			}
			if _, err := s.AddBatch(items); err != nil {
				return nil, err
			}
		}
		if err := s.Flush(); err != nil {
			return nil, err
		}
		calls := make([]time.Duration, 0, adds)
		began := time.Now()
		for a := 0; a < adds; a++ {
			ts := hourlySeries(next, length)
			t := time.Now()
			if _, err := s.Add(gen(next), ts, nil); err != nil {
				return nil, err
			}
			calls = append(calls, time.Since(t))
			next++
		}
		if err := s.Flush(); err != nil {
			return nil, err
		}
		loop := time.Since(began)
		// Durable adds: each add flushed on its own, as a program that must not lose any
		// does. Each flush ends a unit of the file's rollback journal: the old bytes of every
		// committed page the add rewrites are journalled and synced before being overwritten.
		jb0, _ := s.JournalStats()
		durable := make([]time.Duration, 0, adds)
		for a := 0; a < adds; a++ {
			ts := hourlySeries(next, length)
			t := time.Now()
			if _, err := s.Add(gen(next), ts, nil); err != nil {
				return nil, err
			}
			if err := s.Flush(); err != nil {
				return nil, err
			}
			durable = append(durable, time.Since(t))
			next++
		}
		jb1, _ := s.JournalStats()
		c := fmt.Sprintf("%d stored, [%d] f64", level, length)
		out = append(out,
			result{"curve", c, "next SingleTimeSeries add, the call (median)", medianMicros(calls), "µs"},
			result{"curve", c, fmt.Sprintf("%d one-at-a-time adds + flush, per add", adds), perItem(loop, adds), "µs"},
			result{"curve", c, "one add + its own flush (durable; median)", medianMicros(durable), "µs"},
			result{"curve", c, "journal written per durable add", float64(jb1-jb0) / float64(adds) / 1024, "KiB"},
		)
	}
	out = append(out, result{"curve", fmt.Sprintf("%d stored", next), "store size", storeMiB(path), "MiB"})
	return out, nil
}
