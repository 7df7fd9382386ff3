package pmcoa

import (
	"testing"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
)

// TestGate: the metadata decides before any XML is fetched.
func TestGate(t *testing.T) {
	env := &remote.Env{Source: pipelines.Source{Params: map[string]string{}},
		Families: []licence.Family{licence.CC0, licence.PDM, licence.CCBY, licence.CCBYSA}}
	narrow := &remote.Env{Source: pipelines.Source{}, Families: []licence.Family{licence.CC0}}
	code := func(s string) *string { return &s }
	tests := []struct {
		name string
		env  *remote.Env
		m    Metadata
		want string
	}{
		{"CC BY", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC BY")}, ""},
		{"CC0", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC0")}, ""},
		{"author manuscript", env, Metadata{IsPMCOpenAccess: false, LicenseCode: code("TDM")}, "not-open-access"},
		{"TDM claiming OA", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("TDM")}, "licence:TDM"},
		{"non-commercial", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC BY-NC-ND")}, "licence:CC BY-NC-ND"},
		{"no licence", env, Metadata{IsPMCOpenAccess: true}, "licence:none"},
		{"retracted", env, Metadata{IsPMCOpenAccess: true, IsRetracted: true, LicenseCode: code("CC BY")}, "retracted"},
		{"narrowed by the pipeline", narrow, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC BY")}, "licence:excluded-CC-BY"},
	}
	for _, tc := range tests {
		if got := gate(tc.env, &tc.m); got != tc.want {
			t.Errorf("%s: gate = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestKeyVersion(t *testing.T) {
	id, v := keyVersion("metadata/PMC10009416.2.json")
	if id != "PMC10009416" || v != 2 {
		t.Errorf("keyVersion = %s, %d", id, v)
	}
}
