// Package sun computes sunrise, sunset, solar noon and daylight with the
// NOAA Solar Calculator's algorithm (NOAA Global Monitoring Laboratory,
// gml.noaa.gov/grad/solcalc/calcdetails.html, after Meeus, Astronomical
// Algorithms). Times are for the standard refraction-corrected zenith of
// 90.833 degrees, at sea level. Where the sun does not cross that zenith
// on a day, the answer says polar day or polar night.
package sun
