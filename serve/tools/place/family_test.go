package place

import (
	"flag"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/place/weather"
)

// TestFamilyFlags: the flags bind to the family's config; left alone they
// are the documented defaults, and a threshold set to 0 stays 0.
func TestFamilyFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, c Config)
	}{
		{"defaults", nil, func(t *testing.T, c Config) {
			want := weather.DefaultThresholds
			want.Complete = true
			if c.Weather.Thresholds != want {
				t.Errorf("thresholds %+v, want %+v", c.Weather.Thresholds, want)
			}
			if c.GeocoderURL != DefaultGeocoderURL || c.GeocoderPerSecond != 5 || c.Weather.RequestsPerSecond != 10 ||
				c.Weather.Provider != "open-meteo" || c.Weather.METNorwayURL != weather.METNorwayURL {
				t.Errorf("config %+v", c)
			}
		}},
		{"set", []string{"-weather-frost-max-temperature-c", "0", "-weather-rps", "3", "-geocoder-url", "http://127.0.0.1:1"},
			func(t *testing.T, c Config) {
				if c.Weather.Thresholds.FrostMaxTempC != 0 || !c.Weather.Thresholds.Complete {
					t.Errorf("frost threshold %v (complete %v), want 0", c.Weather.Thresholds.FrostMaxTempC, c.Weather.Thresholds.Complete)
				}
				if c.Weather.RequestsPerSecond != 3 || c.GeocoderURL != "http://127.0.0.1:1" {
					t.Errorf("config %+v", c)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f Family
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			f.RegisterFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			tc.check(t, f.Config)
		})
	}
}
