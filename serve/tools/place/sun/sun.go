package sun

import (
	"math"
	"time"
)

// Day is the sun on one calendar day at one place.
type Day struct {
	// Sunrise and Sunset are UTC instants; zero in polar day or night.
	Sunrise   time.Time `json:"sunrise,omitzero"`
	Sunset    time.Time `json:"sunset,omitzero"`
	SolarNoon time.Time `json:"solar_noon"`
	// Daylight is the time between sunrise and sunset: 24 h in polar day,
	// 0 in polar night.
	Daylight   time.Duration `json:"-"`
	PolarDay   bool          `json:"polar_day"`
	PolarNight bool          `json:"polar_night"`
}

// zenith of sunrise and sunset: 90° plus refraction and the sun's radius.
const zenith = 90.833

func rad(d float64) float64 { return d * math.Pi / 180 }
func deg(r float64) float64 { return r * 180 / math.Pi }

// julianCentury of an instant.
func julianCentury(t time.Time) float64 {
	jd := float64(t.UnixNano())/86400e9 + 2440587.5
	return (jd - 2451545) / 36525
}

// position returns the sun's declination (degrees) and the equation of
// time (minutes) at Julian century T, as in NOAA's spreadsheet.
func position(T float64) (decl, eqTime float64) {
	L0 := math.Mod(280.46646+T*(36000.76983+T*0.0003032), 360)
	M := 357.52911 + T*(35999.05029-0.0001537*T)
	e := 0.016708634 - T*(0.000042037+0.0000001267*T)
	C := math.Sin(rad(M))*(1.914602-T*(0.004817+0.000014*T)) + math.Sin(rad(2*M))*(0.019993-0.000101*T) +
		math.Sin(rad(3*M))*0.000289
	trueLong := L0 + C
	omega := 125.04 - 1934.136*T
	appLong := trueLong - 0.00569 - 0.00478*math.Sin(rad(omega))
	meanObliq := 23 + (26+(21.448-T*(46.815+T*(0.00059-T*0.001813)))/60)/60
	obliq := meanObliq + 0.00256*math.Cos(rad(omega))
	decl = deg(math.Asin(math.Sin(rad(obliq)) * math.Sin(rad(appLong))))
	y := math.Pow(math.Tan(rad(obliq/2)), 2)
	eqTime = 4 * deg(y*math.Sin(2*rad(L0))-2*e*math.Sin(rad(M))+4*e*y*math.Sin(rad(M))*math.Cos(2*rad(L0))-
		0.5*y*y*math.Sin(4*rad(L0))-1.25*e*e*math.Sin(2*rad(M)))
	return decl, eqTime
}

// hourAngle of the sun at the zenith angle, in degrees; NaN when the sun
// stays above (cos < -1) or below (cos > 1) it all day.
func hourAngle(lat, decl float64) (float64, float64) {
	c := math.Cos(rad(zenith))/(math.Cos(rad(lat))*math.Cos(rad(decl))) - math.Tan(rad(lat))*math.Tan(rad(decl))
	return deg(math.Acos(c)), c
}

// On returns the sun on the UTC calendar day of date at (lat, lon),
// longitude east positive. Each event is refined once with the sun's
// position at the event's own time, as NOAA's web calculator does.
func On(date time.Time, lat, lon float64) Day {
	midnight := time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, time.UTC)
	at := func(minutes float64) time.Time {
		return midnight.Add(time.Duration(minutes * float64(time.Minute)))
	}
	// Solar noon: two passes.
	noon := 720 - 4*lon
	for range 2 {
		_, eq := position(julianCentury(at(noon)))
		noon = 720 - 4*lon - eq
	}
	d := Day{SolarNoon: at(noon).Round(time.Second)}
	event := func(sign float64) (float64, bool) {
		t := noon
		for range 2 {
			decl, eq := position(julianCentury(at(t)))
			ha, c := hourAngle(lat, decl)
			if math.IsNaN(ha) {
				if c > 1 {
					d.PolarNight = true
				} else {
					d.PolarDay = true
				}
				return 0, false
			}
			t = 720 - 4*(lon+sign*ha) - eq
		}
		return t, true
	}
	rise, ok1 := event(1)
	set, ok2 := event(-1)
	switch {
	case ok1 && ok2:
		d.PolarDay, d.PolarNight = false, false
		d.Sunrise, d.Sunset = at(rise).Round(time.Second), at(set).Round(time.Second)
		d.Daylight = d.Sunset.Sub(d.Sunrise)
	case d.PolarDay && !d.PolarNight:
		d.Daylight = 24 * time.Hour
	default:
		d.PolarDay, d.PolarNight = false, true
	}
	return d
}
