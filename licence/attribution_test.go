package licence

import (
	"strings"
	"testing"
)

func accepted(f Family, version, port string) Decision {
	return Decision{Accepted: true, Family: f, Version: version, Port: port, URL: CanonicalURL(f, version, port), Detail: "test"}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		f                Family
		version, port    string
		name, short, url string
	}{
		{CCBY, "4.0", "", "Creative Commons Attribution 4.0 International", "CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"},
		{CCBY, "3.0", "", "Creative Commons Attribution 3.0 Unported", "CC BY 3.0", "https://creativecommons.org/licenses/by/3.0/"},
		{CCBY, "2.0", "", "Creative Commons Attribution 2.0 Generic", "CC BY 2.0", "https://creativecommons.org/licenses/by/2.0/"},
		{CCBY, "2.5", "", "Creative Commons Attribution 2.5 Generic", "CC BY 2.5", "https://creativecommons.org/licenses/by/2.5/"},
		{CCBY, "3.0", "igo", "Creative Commons Attribution 3.0 IGO", "CC BY 3.0 IGO", "https://creativecommons.org/licenses/by/3.0/igo/"},
		{CCBY, "2.0", "uk", "Creative Commons Attribution 2.0 England and Wales", "CC BY 2.0 UK", "https://creativecommons.org/licenses/by/2.0/uk/"},
		{CCBY, "3.0", "xx", "Creative Commons Attribution 3.0 XX", "CC BY 3.0 XX", "https://creativecommons.org/licenses/by/3.0/xx/"},
		{CCBY, "", "", "Creative Commons Attribution", "CC BY", "https://creativecommons.org/licenses/by/"},
		{CCBYSA, "4.0", "", "Creative Commons Attribution-ShareAlike 4.0 International", "CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"},
		{CCBYSA, "", "", "Creative Commons Attribution-ShareAlike", "CC BY-SA", "https://creativecommons.org/licenses/by-sa/"},
		{CC0, "1.0", "", "CC0 1.0 Universal", "CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/"},
		{PDM, "1.0", "", "Public Domain Mark 1.0", "PDM 1.0", "https://creativecommons.org/publicdomain/mark/1.0/"},
		{"CC-BY-NC", "4.0", "", "", "", ""},
	} {
		if got := Name(c.f, c.version, c.port); got != c.name {
			t.Errorf("Name(%s %s %s) = %q, want %q", c.f, c.version, c.port, got, c.name)
		}
		if got := ShortName(c.f, c.version, c.port); got != c.short {
			t.Errorf("ShortName(%s %s %s) = %q, want %q", c.f, c.version, c.port, got, c.short)
		}
		if got := CanonicalURL(c.f, c.version, c.port); got != c.url {
			t.Errorf("CanonicalURL(%s %s %s) = %q, want %q", c.f, c.version, c.port, got, c.url)
		}
	}
	if n := (Decision{Reason: NonCommercial}).Name(); n != "" {
		t.Errorf("rejected decision has name %q", n)
	}
	if n := accepted(CCBY, "4.0", "").ShortName(); n != "CC BY 4.0" {
		t.Errorf("ShortName = %q", n)
	}
}

var elife = AttributionInput{
	Authors: []string{"Chiara Ciferri", "Sebastiano Pasqualato", "Emanuela Screpanti", "Gianluca Varetti"},
	Title:   "Implications for kinetochore-microtubule attachment from the structure of an engineered Ndc80 complex",
	Venue:   "eLife",
	Year:    "2012",
	DOI:     "https://doi.org/10.7554/eLife.00005",
}

func TestAttribution(t *testing.T) {
	for _, c := range []struct {
		name string
		in   AttributionInput
		d    Decision
		want string
	}{
		{"CC BY 3.0, four authors", elife, accepted(CCBY, "3.0", ""),
			`Chiara Ciferri, Sebastiano Pasqualato, Emanuela Screpanti, et al. "Implications for kinetochore-microtubule attachment from the structure of an engineered Ndc80 complex." eLife (2012). https://doi.org/10.7554/eLife.00005. Licensed under Creative Commons Attribution 3.0 Unported (https://creativecommons.org/licenses/by/3.0/).`},
		{"exactly three authors, doi: prefix, question title, changes",
			AttributionInput{Authors: []string{"A B", " ", "C D", "E F"}, Title: "Why  now?", Venue: "PLoS Biol", Year: "2004",
				DOI: "doi:10.1371/journal.pbio.0020188", Changes: "converted from JATS XML to plain text"},
			accepted(CCBY, "", ""),
			`A B, C D, E F. "Why now?" PLoS Biol (2004). https://doi.org/10.1371/journal.pbio.0020188. Licensed under Creative Commons Attribution (https://creativecommons.org/licenses/by/). Changes: converted from JATS XML to plain text.`},
		{"CC0, no DOI, landing page", AttributionInput{Authors: []string{"X Y"}, Title: "T.", URL: "https://example.org/a"},
			accepted(CC0, "1.0", ""),
			`X Y. "T." https://example.org/a. Dedicated to the public domain under CC0 1.0 Universal (https://creativecommons.org/publicdomain/zero/1.0/).`},
		{"PDM, year only, MaxAuthors 1", AttributionInput{Authors: []string{"EHP", "Other"}, Year: "2008", MaxAuthors: 1},
			accepted(PDM, "1.0", ""),
			`EHP, et al. (2008). Free of known copyright restrictions, marked with the Public Domain Mark 1.0 (https://creativecommons.org/publicdomain/mark/1.0/).`},
		{"IGO port", AttributionInput{Title: "WHO report", Venue: "PLoS Med"}, accepted(CCBY, "3.0", "igo"),
			`"WHO report." PLoS Med. Licensed under Creative Commons Attribution 3.0 IGO (https://creativecommons.org/licenses/by/3.0/igo/).`},
		{"not a DOI", AttributionInput{Title: "T", DOI: "n/a"}, accepted(CCBYSA, "4.0", ""),
			`"T." Licensed under Creative Commons Attribution-ShareAlike 4.0 International (https://creativecommons.org/licenses/by-sa/4.0/).`},
		{"rejected", elife, Decision{Reason: NonCommercial}, ""},
	} {
		if got := Attribution(c.in, c.d); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

func TestCopyrightNotice(t *testing.T) {
	by := accepted(CCBY, "4.0", "")
	for _, c := range []struct {
		holder, year string
		d            Decision
		want         string
	}{
		{"Bowman et al", "2014", by, "© 2014 Bowman et al"},
		{"© 2014, Bowman et al", "2014", by, "© 2014, Bowman et al"},
		{"Copyright © 2008 van der Meulen et al; licensee BioMed Central Ltd.", "2008", by,
			"Copyright © 2008 van der Meulen et al; licensee BioMed Central Ltd."},
		{"(c) 2010 Cancer Research UK", "", by, "(c) 2010 Cancer Research UK"},
		{"", "2019", by, "© 2019 The Authors"},
		{"", "", by, "© The Authors"},
		{"  The PLOS ONE   Staff ", "2014", by, "© 2014 The PLOS ONE Staff"},
		{"Public Library of Science", "2012", accepted(CC0, "1.0", ""), "No copyright: dedicated to the public domain (CC0 1.0 Universal)."},
		{"", "2008", accepted(PDM, "1.0", ""), "No known copyright: marked as public domain (Public Domain Mark 1.0)."},
	} {
		if got := CopyrightNotice(c.holder, c.year, c.d); got != c.want {
			t.Errorf("CopyrightNotice(%q, %q, %s) = %q, want %q", c.holder, c.year, c.d.Family, got, c.want)
		}
	}
}

func TestShareAlikeNotice(t *testing.T) {
	for _, d := range []Decision{accepted(CCBY, "4.0", ""), accepted(CC0, "1.0", ""), accepted(PDM, "1.0", ""),
		{Reason: NonCommercial}, {Reason: Conflict, Family: CCBYSA}} {
		if got := ShareAlikeNotice(d); got != "" {
			t.Errorf("ShareAlikeNotice(%+v) = %q, want empty", d, got)
		}
	}
	got := ShareAlikeNotice(accepted(CCBYSA, "4.0", ""))
	for _, want := range []string{"Creative Commons Attribution-ShareAlike 4.0 International",
		"https://creativecommons.org/licenses/by-sa/4.0/", "Adaptations must be shared under CC BY-SA 4.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("ShareAlikeNotice = %q, missing %q", got, want)
		}
	}
	if got := ShareAlikeNotice(accepted(CCBYSA, "", "")); !strings.Contains(got, "under the same licence") {
		t.Errorf("unversioned ShareAlikeNotice = %q", got)
	}
}

// Attribution of every accepted fixture-style decision names its licence
// and URL.
func TestAttributionFromDecide(t *testing.T) {
	for _, c := range decideCases {
		if c.family == "" {
			continue
		}
		now := c.now
		if now.IsZero() {
			now = runDate
		}
		d := Decide(c.ev, now)
		a := Attribution(elife, d)
		if !strings.Contains(a, d.URL) || !strings.Contains(a, d.Name()) {
			t.Errorf("%s: attribution %q lacks %q or %q", c.name, a, d.URL, d.Name())
		}
	}
}
