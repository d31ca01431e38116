package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tsstore/tsstore/core"
)

func Example() {
	dir, _ := os.MkdirTemp("", "tsstore-example")
	defer os.RemoveAll(dir)
	s, err := core.Create(filepath.Join(dir, "system.nc"), nil)
	if err != nil {
		panic(err)
	}
	defer s.Close()

	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	gen := core.Owner{ID: 17, Type: "ThermalStandard", Category: core.Component}
	key, err := s.Add(gen, &core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0,
		Resolution: core.Hours(1), Data: core.ArrayOf([]float64{10, 12, 15, 11})},
		&core.AddOptions{Units: "MW"})
	if err != nil {
		panic(err)
	}
	part, err := s.GetRange(key, t0.Add(90*time.Minute), t0.Add(3*time.Hour))
	if err != nil {
		panic(err)
	}
	sts := part.(*core.SingleTimeSeries)
	values, _ := core.Values[float64](sts.Data)
	fmt.Println(key)
	fmt.Println(sts.InitialTimestamp.Format(time.RFC3339), values)
	// Output:
	// SingleTimeSeries "max_active_power" of Component 17 at PT1H
	// 2024-01-01T01:00:00Z [12 15 11]
}
