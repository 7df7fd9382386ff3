// Package place serves the place tools of the gateway: geocode (by IP,
// name, postcode or position; city level only), weather_risk (forecast
// and decision flags from a pluggable provider) and location_report (a
// resolved place with weather, local time, sunrise and sunset and country
// facts).
//
// Names, positions, IP ranges, countries and time zones are answered from
// offline data (package geo) installed by scripts/setup.sh; only postcodes
// missing from it and the weather go to upstream APIs, whose base URLs are
// configurable and which are reached through the guarded fetch client.
package place
