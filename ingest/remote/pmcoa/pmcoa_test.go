package pmcoa

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
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

// TestVersions: versions collapse to the newest; when the newest is
// withdrawn from the inventory, the one still listed takes its place.
func TestVersions(t *testing.T) {
	srv := fake.New()
	defer srv.Close()
	x1, x2 := []byte("<article>v1</article>"), []byte("<article>v2</article>")
	v1 := fake.PMCArticle{PMCID: "PMC1", Version: 1, LicenseCode: "CC BY", OpenAccess: true, XML: x1}
	v2 := fake.PMCArticle{PMCID: "PMC1", Version: 2, LicenseCode: "CC BY", OpenAccess: true, XML: x2}
	dir := t.TempDir()
	fetch := func() *remote.Result {
		t.Helper()
		env := &remote.Env{
			Source: pipelines.Source{URL: "s3://pmc-oa-opendata/", Params: map[string]string{
				"https_mirror": srv.URL + "/pmc/", "inventory": fake.PMCInventoryPrefix}},
			Dir: dir, Client: download.New(download.Config{}), Logger: slog.New(slog.DiscardHandler),
			Families: []licence.Family{licence.CCBY}, Stats: &remote.Stats{},
		}
		res, err := Adapter{}.Fetch(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.SaveJSON(filepath.Join(dir, remote.StateFile), res.State); err != nil {
			t.Fatal(err)
		}
		res.Cleanup()
		return res
	}
	content := func(res *remote.Result) string {
		t.Helper()
		if len(res.Files) != 1 {
			t.Fatalf("mirror files %v, want one per PMCID", res.Files)
		}
		b, err := os.ReadFile(res.Files[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	srv.PublishPMC("2026-11-23T01-00Z", []fake.PMCArticle{v1, v2})
	if got := content(fetch()); got != string(x2) {
		t.Errorf("both versions listed: mirror holds %q, want v2", got)
	}
	srv.Delete("/pmc/metadata/PMC1.2.json")
	srv.PublishPMC("2026-11-24T01-00Z", []fake.PMCArticle{v1})
	if got := content(fetch()); got != string(x1) {
		t.Errorf("v2 withdrawn: mirror holds %q, want v1 back", got)
	}
}
