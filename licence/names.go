package licence

import "strings"

// Canonical URLs. Unversioned CC BY / CC BY-SA (a licence stated only in
// words) point at the licence family page, never at a version the source did
// not state.
const (
	urlCC0  = "https://creativecommons.org/publicdomain/zero/1.0/"
	urlPDM  = "https://creativecommons.org/publicdomain/mark/1.0/"
	urlBY   = "https://creativecommons.org/licenses/by/"
	urlBYSA = "https://creativecommons.org/licenses/by-sa/"
)

// versioned canonical URLs without a port, precomputed so that Decide does
// not build strings for the common case.
var (
	urlBYVersion   = map[string]string{}
	urlBYSAVersion = map[string]string{}
)

func init() {
	for _, v := range []string{"1.0", "2.0", "2.1", "2.5", "3.0", "4.0"} {
		urlBYVersion[v] = urlBY + v + "/"
		urlBYSAVersion[v] = urlBYSA + v + "/"
	}
}

// CanonicalURL returns the https creativecommons.org URL of an accepted
// licence: https://creativecommons.org/licenses/by/4.0/,
// .../by/3.0/igo/, .../publicdomain/zero/1.0/. An empty version gives the
// family page (https://creativecommons.org/licenses/by/). It returns "" for
// an unknown family.
func CanonicalURL(f Family, version, port string) string {
	var base string
	var table map[string]string
	switch f {
	case CC0:
		return urlCC0
	case PDM:
		return urlPDM
	case CCBY:
		base, table = urlBY, urlBYVersion
	case CCBYSA:
		base, table = urlBYSA, urlBYSAVersion
	default:
		return ""
	}
	if version == "" {
		return base
	}
	if port == "" {
		if u, ok := table[version]; ok {
			return u
		}
	}
	u := base + version + "/"
	if port != "" {
		u += port + "/"
	}
	return u
}

type portName struct{ code, name, short string }

// portNames names the Creative Commons ports most often seen in scholarly
// metadata; others are shown by their code in upper case.
var portNames = map[string]portName{}

func init() {
	for _, p := range []portName{
		{"igo", "IGO", "IGO"}, {"us", "United States", "US"}, {"uk", "England and Wales", "UK"},
		{"scotland", "Scotland", "Scotland"}, {"au", "Australia", "AU"}, {"at", "Austria", "AT"},
		{"br", "Brazil", "BR"}, {"ca", "Canada", "CA"}, {"ch", "Switzerland", "CH"},
		{"cl", "Chile", "CL"}, {"cn", "China Mainland", "CN"}, {"de", "Germany", "DE"},
		{"es", "Spain", "ES"}, {"fr", "France", "FR"}, {"ie", "Ireland", "IE"}, {"in", "India", "IN"},
		{"it", "Italy", "IT"}, {"jp", "Japan", "JP"}, {"mx", "Mexico", "MX"}, {"nl", "Netherlands", "NL"},
		{"nz", "New Zealand", "NZ"}, {"pt", "Portugal", "PT"}, {"za", "South Africa", "ZA"},
		{"ar", "Argentina", "AR"}, {"co", "Colombia", "CO"}, {"pe", "Peru", "PE"}, {"pl", "Poland", "PL"},
	} {
		portNames[p.code] = p
	}
}

func portLong(p string) string {
	if n, ok := portNames[p]; ok {
		return n.name
	}
	return strings.ToUpper(p)
}

func portShort(p string) string {
	if n, ok := portNames[p]; ok {
		return n.short
	}
	return strings.ToUpper(p)
}

// Name returns the human name of an accepted licence as Creative Commons
// writes it: "Creative Commons Attribution 4.0 International",
// "Creative Commons Attribution-ShareAlike 3.0 Unported",
// "Creative Commons Attribution 3.0 IGO", "CC0 1.0 Universal",
// "Public Domain Mark 1.0". Unversioned CC BY is "Creative Commons
// Attribution". It returns "" for an unknown family.
func Name(f Family, version, port string) string {
	var base string
	switch f {
	case CC0:
		return "CC0 1.0 Universal"
	case PDM:
		return "Public Domain Mark 1.0"
	case CCBY:
		base = "Creative Commons Attribution"
	case CCBYSA:
		base = "Creative Commons Attribution-ShareAlike"
	default:
		return ""
	}
	if version == "" {
		return base
	}
	if port != "" {
		return base + " " + version + " " + portLong(port)
	}
	switch version {
	case "4.0":
		return base + " 4.0 International"
	case "3.0":
		return base + " 3.0 Unported"
	default:
		return base + " " + version + " Generic"
	}
}

// ShortName returns the abbreviation: "CC BY 4.0", "CC BY-SA 3.0 IGO",
// "CC BY", "CC0 1.0", "PDM 1.0".
func ShortName(f Family, version, port string) string {
	var s string
	switch f {
	case CC0:
		return "CC0 1.0"
	case PDM:
		return "PDM 1.0"
	case CCBY:
		s = "CC BY"
	case CCBYSA:
		s = "CC BY-SA"
	default:
		return ""
	}
	if version != "" {
		s += " " + version
		if port != "" {
			s += " " + portShort(port)
		}
	}
	return s
}

// Name is the human licence name of an accepted decision ("" otherwise).
func (d Decision) Name() string {
	if !d.Accepted {
		return ""
	}
	return Name(d.Family, d.Version, d.Port)
}

// ShortName is the abbreviated licence name of an accepted decision.
func (d Decision) ShortName() string {
	if !d.Accepted {
		return ""
	}
	return ShortName(d.Family, d.Version, d.Port)
}
