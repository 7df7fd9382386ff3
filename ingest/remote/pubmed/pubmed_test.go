package pubmed

import (
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/remote"
)

func TestSeq(t *testing.T) {
	tests := []struct {
		name string
		want int64
	}{
		{"pubmed26n1275.xml.gz", 26_001_275},
		{"/data/state/pubmed/files/pubmed26n0001.xml.gz", 26_000_001},
		{"pubmed25n1400.xml", 25_001_400},
		{"pubmed26n1275.xml.gz.md5", 0},
		{"README.txt", 0},
	}
	for _, tc := range tests {
		if got := Seq(tc.name); got != tc.want {
			t.Errorf("Seq(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
	if !(Seq("pubmed25n1400.xml.gz") < Seq("pubmed26n0001.xml.gz")) {
		t.Error("a new year's baseline does not sort after the old year's updates")
	}
}

// TestFilter: a deletion in file N drops the PubMed records of that PMID
// from files before N only, and never a record of another source.
func TestFilter(t *testing.T) {
	f := filter(map[string]int64{"111": Seq("pubmed26n0010.xml.gz")}, &remote.Stats{})
	tests := []struct {
		file     string
		doc      ingest.Document
		wantKeep bool
	}{
		{"pubmed26n0009.xml.gz", ingest.Document{PMID: "111", Sources: []string{"pubmed"}}, false},
		{"baseline/pubmed26n0001.xml.gz", ingest.Document{PMID: "111", Sources: []string{"pubmed"}}, false},
		{"pubmed26n0011.xml.gz", ingest.Document{PMID: "111", Sources: []string{"pubmed"}}, true}, // sent again after the deletion
		{"pubmed26n0009.xml.gz", ingest.Document{PMID: "222", Sources: []string{"pubmed"}}, true},
		{"PMC1.1.xml", ingest.Document{PMID: "111", PMCID: "1", Sources: []string{"jats:pmc"}}, true},
	}
	for _, tc := range tests {
		if got := f(tc.file, &tc.doc); got != tc.wantKeep {
			t.Errorf("%s %+v: keep %v, want %v", tc.file, tc.doc, got, tc.wantKeep)
		}
	}
}
