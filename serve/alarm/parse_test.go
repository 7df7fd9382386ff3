package alarm

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func TestParseDeliverAt(t *testing.T) {
	want := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	ok := []struct {
		in   string
		want time.Time
	}{
		{`"2026-12-01T09:30:00Z"`, want},
		{`"2026-12-01T10:30:00+01:00"`, want},
		{`"2026-12-01T04:30:00-05:00"`, want},
		{`"2026-12-01T10:30:00+0100"`, want},
		{`"2026-12-01T10:30:00+01"`, want},
		{`"2026-12-01T09:30Z"`, want},
		{`"2026-12-01t09:30:00z"`, want},
		{`" 2026-12-01T09:30:00Z "`, want},
		{`"2026-12-01T09:30:00.250Z"`, want.Add(250 * time.Millisecond)},
		{`"2026-12-01T09:30:00.2509999Z"`, want.Add(250 * time.Millisecond)},
		{strconv.FormatInt(want.Unix(), 10), want},
		{`"` + strconv.FormatInt(want.Unix(), 10) + `"`, want},
		{strconv.FormatInt(want.Unix(), 10) + ".5", want.Add(500 * time.Millisecond)},
		{`"` + strconv.FormatInt(want.Unix(), 10) + `.125"`, want.Add(125 * time.Millisecond)},
	}
	for _, tt := range ok {
		got, err := ParseDeliverAt(json.RawMessage(tt.in))
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("%s: %v %v, want %v", tt.in, got, err, tt.want)
		}
	}
	bad := []string{
		`"2026-12-01T09:30:00"`, `"2026-12-01T09:30"`, `"2026-12-01"`, `"2026-12-01 09:30:00Z"`,
		`"tomorrow"`, `""`, `"   "`, `"2026-13-01T09:30:00Z"`, `"2026-12-01T25:30:00Z"`, `"1969-12-31T23:59:59Z"`,
		`-1`, `1e9`, `1.8E9`, `"0x10"`, `true`, `null`, `{}`, `[]`, `"\u0000"`, `123456789012`, `1.`, `.5`, `"+1800000000"`,
		`"2026-12-01T09:30:00+25:00"`, `"abc`,
		// Over the specification's 40 characters, though they would parse.
		`"2026-12-01T09:30:00.0000000000000000000000Z"`, `"2026-12-01T09:30:00Z                     "`,
		`1800000000.00000000000000000000000000000000`,
	}
	for _, in := range bad {
		if got, err := ParseDeliverAt(json.RawMessage(in)); err == nil {
			t.Errorf("%s accepted as %v", in, got)
		}
	}
}

func FuzzParseDeliverAt(f *testing.F) {
	for _, s := range []string{`"2026-12-01T09:30:00Z"`, `1800000000`, `"1800000000.5"`, `"2026-12-01T10:30+01"`, `"x"`, `1e9`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseDeliverAt(json.RawMessage(in))
		if err != nil {
			return
		}
		if got.Location() != time.UTC || got.Before(time.Unix(0, 0)) || got.Nanosecond()%int(time.Millisecond) != 0 {
			t.Fatalf("%q parsed to %v", in, got)
		}
		// What we accept round-trips through both accepted forms.
		for _, again := range []string{strconv.Quote(got.Format(time.RFC3339Nano)), strconv.FormatFloat(float64(got.UnixMilli())/1000, 'f', 3, 64)} {
			back, err := ParseDeliverAt(json.RawMessage(again))
			if err != nil || !back.Equal(got) {
				t.Fatalf("%q → %v → %s → %v %v", in, got, again, back, err)
			}
		}
	})
}
