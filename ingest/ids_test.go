package ingest

import "testing"

func TestNormaliseORCID(t *testing.T) {
	for in, want := range map[string]string{
		"0000000179841889":                      "0000-0001-7984-1889",
		"http://orcid.org/0000-0003-0572-4123":  "0000-0003-0572-4123",
		"https://orcid.org/0000-0002-1694-233x": "0000-0002-1694-233X",
		"0000-0002-4447-597X":                   "", // wrong check digit
		"0000-0002-4447":                        "",
		"abcd-0002-4447-5978":                   "",
		"0000-0002-4620-889x":                   "0000-0002-4620-889X",
		"0000-0002-1825-0098":                   "",
		"orcid":                                 "",
	} {
		if got := NormaliseORCID(in); got != want {
			t.Errorf("NormaliseORCID(%q) = %q, want %q", in, got, want)
		}
	}
}
