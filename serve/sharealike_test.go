package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/serve/x402"
)

// TestShareAlikeRights: the fixture corpus has no CC BY-SA document, so this
// test builds a two-document snapshot (CC BY-SA and CC BY) and buys every
// resource of both: the CC BY-SA answers carry share_alike_notice, the CC
// BY ones do not, and both carry the other rights fields.
func TestShareAlikeRights(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := index.NewBuilder(index.Config{DataDir: dir, Fresh: true, Now: now,
		Topics: []index.Topic{{Slug: "ecology", Name: "Ecology"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	for i, lic := range []string{"https://creativecommons.org/licenses/by-sa/4.0/", "https://creativecommons.org/licenses/by/4.0/"} {
		d := &ingest.Document{
			PMCID: fmt.Sprint(900001 + i), Title: fmt.Sprintf("Paper %d on grassland ecology", i), Year: 2024,
			Authors:  []ingest.Author{{Name: "Ada Lovelace", Given: "Ada", Family: "Lovelace"}},
			Abstract: "We count beetles.", Topics: []string{"ecology"}, Sources: []string{"jats:pmc"},
			Sections:   []ingest.Section{{Title: "Methods", Paragraphs: []string{"We counted beetles."}}},
			References: []ingest.Reference{{Title: "On beetles", Authors: []string{"Darwin C"}, Year: "1859"}},
			Licence:    licence.Decide([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC, Value: lic}}, now),
		}
		if !d.Licence.Accepted {
			t.Fatalf("licence %s not accepted: %s", lic, d.Licence.Reason)
		}
		d.AssignIDs()
		if err := b.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}

	a := newTestApp(t, dir, nil)
	h := a.HTTP
	key := testPayer(t)
	seen := map[string]bool{}
	for _, id := range []string{"pmc-900001", "pmc-900002"} {
		for _, target := range []string{"/api/document/" + id, "/api/document/" + id + "/fulltext", "/api/document/" + id + "/references"} {
			res, body := paidGET(t, h, target, x402.EncodeHeader(signFor(t, h, key, target)), nil)
			if res.StatusCode != 200 {
				t.Fatalf("GET %s: %d %.300s", target, res.StatusCode, body)
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			checkRights(t, target, m)
			sa, _ := m["share_alike_notice"].(string)
			switch m["license"] {
			case "CC-BY-SA":
				seen["sa"] = true
				if !strings.Contains(sa, "ShareAlike") || !strings.Contains(sa, "shared under") {
					t.Errorf("%s: share_alike_notice %q does not state the obligation", target, sa)
				}
			case "CC-BY":
				seen["by"] = true
				if _, ok := m["share_alike_notice"]; ok {
					t.Errorf("%s: CC BY carries share_alike_notice %q", target, sa)
				}
			default:
				t.Errorf("%s: licence %v", target, m["license"])
			}
		}
	}
	if !seen["sa"] || !seen["by"] {
		t.Fatalf("did not see both licences: %v", seen)
	}

	// The bundle line of the CC BY-SA document carries the notice too.
	target := "/api/topic/ecology/content"
	res, body := paidGET(t, h, target, x402.EncodeHeader(signFor(t, h, key, target)), nil)
	if res.StatusCode != 200 {
		t.Fatalf("bundle: %d %.300s", res.StatusCode, body)
	}
	lines := ndjsonLines(t, body)
	if len(lines) != 2 {
		t.Fatalf("bundle has %d lines", len(lines))
	}
	for _, l := range lines {
		checkRights(t, "bundle "+fmt.Sprint(l["id"]), l)
		if sa, _ := l["share_alike_notice"].(string); (l["license"] == "CC-BY-SA") != (sa != "") {
			t.Errorf("bundle line %v: licence %v, share_alike_notice %q", l["id"], l["license"], sa)
		}
	}
}
