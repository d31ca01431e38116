package core

import (
	"testing"
)

func TestSingleRoundTripThroughReopen(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("max_active_power", ramp(48, 0.5)), &AddOptions{Units: "MW"})
	s = reopen(t, s, path)
	got := mustGetSingle(t, s, k)
	if !equalFloats(floats(t, got.Data), ramp(48, 0.5)) {
		t.Fatalf("values differ: %v", floats(t, got.Data))
	}
	if !got.InitialTimestamp.Equal(t0) || got.Resolution.String() != "PT1H" {
		t.Fatalf("grid differs: %v %v", got.InitialTimestamp, got.Resolution)
	}
	m, err := s.GetMetadata(k)
	if err != nil {
		t.Fatal(err)
	}
	if m.Units != "MW" || m.OwnerType != "ThermalStandard" || m.Length != 48 {
		t.Fatalf("metadata: %+v", m)
	}
}
