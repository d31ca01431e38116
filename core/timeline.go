package core

import (
	"time"

	"github.com/tsstore/tsstore/core/internal/isotime"
)

// Timeline returns the n timestamps t0 + (first + i) × step, each stepped from t0 as the
// store steps its grids (timegrid.go): what the C API's tsstore_timeline gives bindings.
func Timeline(t0 time.Time, step Period, first, n int) ([]time.Time, error) {
	ts, err := isotime.GridFrom(t0, step, int64(first), n)
	if err != nil {
		return nil, timeErr("timeline", ArgResolution, err)
	}
	return ts, nil
}
