package openalex

import (
	"slices"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/remote"
)

// TestFilter: merged-away works are dropped, their ids become aliases of
// the final survivor (chains resolve), other sources are left alone.
func TestFilter(t *testing.T) {
	f := filter(map[string]string{"W1": "W2", "W2": "W3", "W9": "W9X"}, &remote.Stats{})
	tests := []struct {
		doc         ingest.Document
		wantKeep    bool
		wantAliases []string
	}{
		{ingest.Document{OpenAlex: "W1", Sources: []string{"openalex"}}, false, nil},
		{ingest.Document{OpenAlex: "W2", Sources: []string{"openalex"}}, false, nil},
		{ingest.Document{OpenAlex: "W3", Sources: []string{"openalex"}, Aliases: []string{"doi-x"}}, true, []string{"doi-x", "oa-w1", "oa-w2"}},
		{ingest.Document{OpenAlex: "W1", Sources: []string{"crossref"}}, true, nil},
	}
	for _, tc := range tests {
		got := f("part_000.gz", &tc.doc)
		if got != tc.wantKeep || !slices.Equal(tc.doc.Aliases, tc.wantAliases) {
			t.Errorf("%s: keep %v aliases %v; want %v %v", tc.doc.OpenAlex, got, tc.doc.Aliases, tc.wantKeep, tc.wantAliases)
		}
	}
}

func TestWorkID(t *testing.T) {
	for in, want := range map[string]string{"W123": "W123", "https://openalex.org/W123": "W123", "w5": "W5", "A1": "", "": ""} {
		if got := workID(in); got != want {
			t.Errorf("workID(%q) = %q, want %q", in, got, want)
		}
	}
}
