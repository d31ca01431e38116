package catalog

import (
	"database/sql"
	"reflect"
	"testing"
)

// Decoding a run of rows with one Recent answers as decoding each alone: rows whose periods
// and initial timestamps repeat, change, go NULL and come back, and a bad one among them.
func TestDecodeWithRecentAnswersAsAlone(t *testing.T) {
	text := func(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
	row := func(res, iv, horizon, initial string) Row {
		return Row{Length: sql.NullInt64{Int64: 24, Valid: true}, Resolution: text(res), Interval: text(iv),
			Horizon: text(horizon), InitialTimestamp: text(initial)}
	}
	rows := []Row{
		row("PT1H", "", "", "2030-01-01T00:00:00+00:00"),
		row("PT1H", "", "", "2030-01-01T00:00:00+00:00"),
		row("P1D", "", "", "2030-01-01T00:00:00+00:00"),
		row("PT1H", "P1D", "PT48H", "2030-01-02T00:00:00+00:00"),
		row("PT1H", "P1D", "PT24H", ""),
		row("P1M", "", "", "2030-01-02T00:00:00+00:00"),
		row("PT1H", "", "", "2030-01-01T00:00:00+00:00"),
		row("not a period", "", "", "2030-01-01T00:00:00+00:00"),
		row("PT1H", "", "", "2030-01-01T00:00:00+00:00"),
	}
	var recent Recent
	for i := range rows {
		want, wantErr := rows[i].Decode()
		got, err := rows[i].DecodeWith(&recent)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("row %d: %+v (%v), alone %+v (%v)", i, got, err, want, wantErr)
		}
	}
}
