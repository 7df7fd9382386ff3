// Package weather fetches hourly forecasts from a [Provider] (Open-Meteo's
// forecast API, or MET Norway's Locationforecast 2.0), caches them per
// position rounded to 0.01 degrees and per hour, and scores them into the
// decision flags of weather_risk: drone_safe, event_risk, rain_expected,
// frost_risk and high_wind, each reported with its thresholds and the
// hours that triggered it. Thresholds are a [Thresholds] value in the
// configuration, so an operator can override every one.
package weather
