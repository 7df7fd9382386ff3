package weather

import (
	"errors"
	"slices"
	"time"
)

// Thresholds of the decision flags. Zero fields take the defaults below,
// which follow common operating limits: consumer drones are rated for
// sustained wind up to about 8–10 m/s; "strong breeze" (Beaufort 6) starts
// at 39 km/h; ground frost is likely at 2 m temperatures of 1 °C or less.
type Thresholds struct {
	// drone_safe is false if any hour has wind, gust, precipitation or
	// precipitation probability above these, or temperature outside
	// [DroneMinTempC, DroneMaxTempC], or thunder.
	DroneMaxWindKmh       float64 `json:"drone_max_wind_kmh"`
	DroneMaxGustKmh       float64 `json:"drone_max_gust_kmh"`
	DroneMaxPrecipMM      float64 `json:"drone_max_precipitation_mm"`
	DroneMaxPrecipProbPct float64 `json:"drone_max_precipitation_probability"`
	DroneMinTempC         float64 `json:"drone_min_temperature_c"`
	DroneMaxTempC         float64 `json:"drone_max_temperature_c"`
	// rain_expected: an hour with at least RainMinMM, or a probability of
	// at least RainMinProbPct.
	RainMinMM      float64 `json:"rain_min_precipitation_mm"`
	RainMinProbPct float64 `json:"rain_min_probability"`
	// frost_risk: an hour at or below FrostMaxTempC.
	FrostMaxTempC float64 `json:"frost_max_temperature_c"`
	// high_wind: an hour with sustained wind or gusts at or above these.
	HighWindKmh     float64 `json:"high_wind_kmh"`
	HighWindGustKmh float64 `json:"high_wind_gust_kmh"`
	// event_risk is high for thunder, gusts at or above EventHighGustKmh or
	// precipitation at or above EventHighPrecipMM in an hour; moderate
	// when rain_expected, frost_risk or high_wind; low otherwise.
	EventHighGustKmh  float64 `json:"event_high_gust_kmh"`
	EventHighPrecipMM float64 `json:"event_high_precipitation_mm"`
	// Complete says every field is set, zeros included (the command line
	// fills them all); otherwise a zero field takes its default.
	Complete bool `json:"-"`
}

// DefaultThresholds are used for every field left zero, unless the
// Thresholds are Complete (then a zero is a zero: 0 °C).
var DefaultThresholds = Thresholds{
	DroneMaxWindKmh: 29, DroneMaxGustKmh: 38, DroneMaxPrecipMM: 0.1, DroneMaxPrecipProbPct: 40,
	DroneMinTempC: -10, DroneMaxTempC: 40,
	RainMinMM: 0.5, RainMinProbPct: 50,
	FrostMaxTempC: 1,
	HighWindKmh:   39, HighWindGustKmh: 60,
	EventHighGustKmh: 75, EventHighPrecipMM: 7.6, // 7.6 mm/h: heavy rain (AMS glossary)
}

func (t Thresholds) withDefaults() Thresholds {
	if t.Complete {
		return t
	}
	d := DefaultThresholds
	for _, p := range []struct{ dst, def *float64 }{
		{&t.DroneMaxWindKmh, &d.DroneMaxWindKmh}, {&t.DroneMaxGustKmh, &d.DroneMaxGustKmh},
		{&t.DroneMaxPrecipMM, &d.DroneMaxPrecipMM}, {&t.DroneMaxPrecipProbPct, &d.DroneMaxPrecipProbPct},
		{&t.DroneMinTempC, &d.DroneMinTempC}, {&t.DroneMaxTempC, &d.DroneMaxTempC},
		{&t.RainMinMM, &d.RainMinMM}, {&t.RainMinProbPct, &d.RainMinProbPct}, {&t.FrostMaxTempC, &d.FrostMaxTempC},
		{&t.HighWindKmh, &d.HighWindKmh}, {&t.HighWindGustKmh, &d.HighWindGustKmh},
		{&t.EventHighGustKmh, &d.EventHighGustKmh}, {&t.EventHighPrecipMM, &d.EventHighPrecipMM},
	} {
		if *p.dst == 0 {
			*p.dst = *p.def
		}
	}
	return t
}

func (t Thresholds) validate() error {
	if t.DroneMinTempC >= t.DroneMaxTempC {
		return errors.New("weather: drone minimum temperature must be below the maximum")
	}
	return nil
}

// Flags are the decisions over a forecast window.
type Flags struct {
	DroneSafe    Flag      `json:"drone_safe"`
	EventRisk    EventRisk `json:"event_risk"`
	RainExpected Flag      `json:"rain_expected"`
	FrostRisk    Flag      `json:"frost_risk"`
	HighWind     Flag      `json:"high_wind"`
}

// Flag is one yes/no decision with the thresholds it used and the hours
// that decided it (for drone_safe: the unsafe hours).
type Flag struct {
	Value      bool               `json:"value"`
	Thresholds map[string]float64 `json:"thresholds"`
	Hours      []time.Time        `json:"hours"`
}

// EventRisk is low, moderate or high with its reasons.
type EventRisk struct {
	Level      string             `json:"level"`
	Reasons    []string           `json:"reasons"`
	Thresholds map[string]float64 `json:"thresholds"`
	Hours      []time.Time        `json:"hours"`
}

// Score evaluates every flag over hours.
func (t Thresholds) Score(hours []Hour) Flags {
	gust := func(h Hour) float64 {
		if h.WindGustKmh != nil {
			return *h.WindGustKmh
		}
		return h.WindSpeedKmh
	}
	prob := func(h Hour) float64 {
		if h.PrecipitationProbability != nil {
			return *h.PrecipitationProbability
		}
		return 0
	}
	f := Flags{
		DroneSafe: Flag{Thresholds: map[string]float64{"max_wind_kmh": t.DroneMaxWindKmh, "max_gust_kmh": t.DroneMaxGustKmh,
			"max_precipitation_mm": t.DroneMaxPrecipMM, "max_precipitation_probability": t.DroneMaxPrecipProbPct,
			"min_temperature_c": t.DroneMinTempC, "max_temperature_c": t.DroneMaxTempC}},
		RainExpected: Flag{Thresholds: map[string]float64{"min_precipitation_mm": t.RainMinMM, "min_probability": t.RainMinProbPct}},
		FrostRisk:    Flag{Thresholds: map[string]float64{"max_temperature_c": t.FrostMaxTempC}},
		HighWind:     Flag{Thresholds: map[string]float64{"wind_kmh": t.HighWindKmh, "gust_kmh": t.HighWindGustKmh}},
		EventRisk: EventRisk{Thresholds: map[string]float64{"high_gust_kmh": t.EventHighGustKmh,
			"high_precipitation_mm": t.EventHighPrecipMM}},
	}
	high := map[string]bool{}
	for _, h := range hours {
		if h.WindSpeedKmh > t.DroneMaxWindKmh || gust(h) > t.DroneMaxGustKmh || h.PrecipitationMM > t.DroneMaxPrecipMM ||
			prob(h) > t.DroneMaxPrecipProbPct || h.TemperatureC < t.DroneMinTempC || h.TemperatureC > t.DroneMaxTempC || h.Thunder {
			f.DroneSafe.Hours = append(f.DroneSafe.Hours, h.Time)
		}
		if h.PrecipitationMM >= t.RainMinMM || prob(h) >= t.RainMinProbPct {
			f.RainExpected.Hours = append(f.RainExpected.Hours, h.Time)
		}
		if h.TemperatureC <= t.FrostMaxTempC {
			f.FrostRisk.Hours = append(f.FrostRisk.Hours, h.Time)
		}
		if h.WindSpeedKmh >= t.HighWindKmh || gust(h) >= t.HighWindGustKmh {
			f.HighWind.Hours = append(f.HighWind.Hours, h.Time)
		}
		hit := false
		for reason, on := range map[string]bool{"thunder": h.Thunder, "gusts": gust(h) >= t.EventHighGustKmh,
			"heavy_precipitation": h.PrecipitationMM >= t.EventHighPrecipMM} {
			if on {
				high[reason], hit = true, true
			}
		}
		if hit {
			f.EventRisk.Hours = append(f.EventRisk.Hours, h.Time)
		}
	}
	f.DroneSafe.Value = len(f.DroneSafe.Hours) == 0
	f.RainExpected.Value = len(f.RainExpected.Hours) > 0
	f.FrostRisk.Value = len(f.FrostRisk.Hours) > 0
	f.HighWind.Value = len(f.HighWind.Hours) > 0
	f.EventRisk.Reasons = []string{}
	for _, r := range []string{"thunder", "gusts", "heavy_precipitation"} {
		if high[r] {
			f.EventRisk.Reasons = append(f.EventRisk.Reasons, r)
		}
	}
	switch {
	case len(f.EventRisk.Reasons) > 0:
		f.EventRisk.Level = "high"
	case f.RainExpected.Value || f.FrostRisk.Value || f.HighWind.Value:
		f.EventRisk.Level = "moderate"
		for _, r := range []struct {
			on   bool
			name string
			hrs  []time.Time
		}{{f.RainExpected.Value, "rain_expected", f.RainExpected.Hours}, {f.FrostRisk.Value, "frost_risk", f.FrostRisk.Hours},
			{f.HighWind.Value, "high_wind", f.HighWind.Hours}} {
			if r.on {
				f.EventRisk.Reasons = append(f.EventRisk.Reasons, r.name)
				f.EventRisk.Hours = append(f.EventRisk.Hours, r.hrs...)
			}
		}
	default:
		f.EventRisk.Level = "low"
	}
	slices.SortFunc(f.EventRisk.Hours, func(a, b time.Time) int { return a.Compare(b) })
	f.EventRisk.Hours = slices.CompactFunc(f.EventRisk.Hours, func(a, b time.Time) bool { return a.Equal(b) })
	for _, p := range []*[]time.Time{&f.DroneSafe.Hours, &f.RainExpected.Hours, &f.FrostRisk.Hours, &f.HighWind.Hours, &f.EventRisk.Hours} {
		if *p == nil {
			*p = []time.Time{}
		}
	}
	return f
}
