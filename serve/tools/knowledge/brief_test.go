package knowledge_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/servetest"
)

func TestResearchBrief(t *testing.T) {
	f := newFakes(t)
	env := newEnv(t, f)
	in := map[string]any{"query": "widget science mapping", "max_papers": 8}
	m := env.PaidCall(t, http.MethodPost, "/v1/research-brief", in)
	// The 402, the paid call's check and its handler: one request to each
	// live source.
	if f.oaCalls.Load() != 1 || f.crCalls.Load() != 1 {
		t.Errorf("live calls: openalex %d, crossref %d; want 1 each", f.oaCalls.Load(), f.crCalls.Load())
	}
	for _, u := range []string{f.lastOA.Load().(string), f.lastCR.Load().(string)} {
		if !strings.Contains(u, "mailto=ops%40openshelf.test") {
			t.Errorf("live request %s without mailto", u)
		}
	}
	papers := items(m, "papers")
	if len(papers) != 8 {
		t.Fatalf("%d papers, want 8: %v", len(papers), m)
	}
	byDOI := map[string]map[string]any{}
	for i, p := range papers {
		if p["n"] != float64(i+1) {
			t.Errorf("paper %d numbered %v", i, p["n"])
		}
		byDOI[p["doi"].(string)] = p
		if p["open_licence"] != true && p["abstract"] != nil {
			t.Errorf("abstract given for a paper without an open licence: %v", p)
		}
	}
	// OpenAlex fixture: bibliometrix (closed, 9231 citations) ranks first;
	// the PeerJ paper is CC BY with an abstract.
	bib, peerj := byDOI["10.1016/j.joi.2017.08.007"], byDOI["10.7717/peerj.4375"]
	if bib == nil || peerj == nil || papers[0]["doi"] != "10.1016/j.joi.2017.08.007" {
		t.Fatalf("papers %v", papers)
	}
	if bib["open_licence"] != false || bib["citations"] != float64(9231) || bib["year"] != float64(2017) ||
		bib["venue"] != "Journal of Informetrics" || len(bib["authors"].([]any)) == 0 {
		t.Errorf("bibliometrix %v", bib)
	}
	if peerj["open_licence"] != true || peerj["license"] != "CC-BY" || peerj["abstract"] == nil || peerj["citations"] != float64(957) {
		t.Errorf("peerj %v", peerj)
	}
	// Crossref's widget works are closed (Springer TDM or none).
	for _, p := range papers {
		if p["source"] == "crossref" && p["open_licence"] == true {
			t.Errorf("crossref paper open: %v", p)
		}
	}
	syn, _ := m["synthesis"].(map[string]any)
	sents := items(syn, "sentences")
	if len(sents) == 0 {
		t.Fatalf("no synthesis: %v", m)
	}
	for _, s := range sents {
		n := int(s["cite"].(float64))
		p := papers[n-1]
		abs, _ := p["abstract"].(string)
		if p["open_licence"] != true || !strings.Contains(abs, s["text"].(string)) {
			t.Errorf("synthesis sentence %q cites [%d] %v, which does not permit it or lacks it", s["text"], n, p["title"])
		}
		if !strings.Contains(syn["text"].(string), s["text"].(string)+" ["+itoa(n)+"]") {
			t.Errorf("synthesis text %q lacks %q [%d]", syn["text"], s["text"], n)
		}
	}
	// The same question again within the cache's life: no live call.
	env.PaidCall(t, http.MethodPost, "/v1/research-brief", in)
	if f.oaCalls.Load() != 1 || f.crCalls.Load() != 1 {
		t.Errorf("second brief called the live sources again: %d, %d", f.oaCalls.Load(), f.crCalls.Load())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestResearchBriefNotCovered(t *testing.T) {
	f := newFakes(t)
	env := newEnv(t, f)
	in := map[string]any{"query": "qqzx unheard of"}
	for range 2 {
		res, m := env.Call(t, http.MethodPost, "/v1/research-brief", in, "")
		if res.StatusCode != http.StatusNotFound || servetest.ErrCode(m) != "not_covered" {
			t.Fatalf("not covered: %d %v, want 404 not_covered before payment", res.StatusCode, m)
		}
	}
	if f.oaCalls.Load() != 1 || f.crCalls.Load() != 1 {
		t.Errorf("live calls %d, %d; want 1 each (the refusal is cached)", f.oaCalls.Load(), f.crCalls.Load())
	}
	if env.Settlements(t) != 0 {
		t.Error("charged for a not-covered query")
	}
}

func TestResearchBriefUpstreamFailure(t *testing.T) {
	f := newFakes(t)
	env := newEnv(t, f)
	res, m := env.Call(t, http.MethodPost, "/v1/research-brief", map[string]any{"query": "boom crboom qqzx"}, "")
	if res.StatusCode != http.StatusBadGateway || servetest.ErrCode(m) != "upstream_status" {
		t.Errorf("failing sources: %d %v, want 502 upstream_status before payment", res.StatusCode, m)
	}
	// One source failing while the other answers is a brief, with the
	// failure reported.
	res, m = env.Call(t, http.MethodPost, "/v1/research-brief", map[string]any{"query": "widget boom"}, "")
	if res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("one source up: %d %v, want 402", res.StatusCode, m)
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/research-brief", map[string]any{"query": "widget boom"})
	st := map[string]string{}
	for _, s := range items(m, "sources") {
		st[s["name"].(string)] = s["status"].(string)
	}
	if st["openalex"] != "error" || st["crossref"] != "ok" || st["archive"] != "ok" {
		t.Errorf("sources %v", m["sources"])
	}
}

func TestResearchBriefArchiveOnly(t *testing.T) {
	f := newFakes(t)
	env := newEnv(t, f)
	// A title word of a fixture document (found through query_specs).
	m := env.PaidCall(t, http.MethodPost, "/v1/research-brief", map[string]any{
		"query": "curcuminoid submicron particle", "include_live": false, "max_papers": 2})
	if f.oaCalls.Load()+f.crCalls.Load() != 0 {
		t.Errorf("include_live false called the live sources")
	}
	papers := items(m, "papers")
	if len(papers) != 1 || papers[0]["archive_id"] != "pmc-5828200" || papers[0]["open_licence"] != true ||
		papers[0]["attribution"] == nil || papers[0]["abstract"] == nil {
		t.Fatalf("papers %v", m)
	}
	syn, _ := m["synthesis"].(map[string]any)
	if s := items(syn, "sentences"); len(s) != 1 || s[0]["cite"] != float64(1) {
		t.Errorf("synthesis %v", syn)
	}
	// A question: the archive retries with its longest content words.
	m = env.PaidCall(t, http.MethodPost, "/v1/research-brief", map[string]any{
		"query": "What does the literature say about curcuminoid submicron particles?", "include_live": false})
	if papers := items(m, "papers"); len(papers) != 1 || papers[0]["archive_id"] != "pmc-5828200" {
		t.Errorf("question: %v", m)
	}
	// Prose that is not a valid query (one quotation mark, a stray
	// parenthesis) is searched as its words, not refused.
	m = env.PaidCall(t, http.MethodPost, "/v1/research-brief", map[string]any{
		"query": `curcuminoid "submicron particle (size`, "include_live": false})
	if papers := items(m, "papers"); len(papers) != 1 || papers[0]["archive_id"] != "pmc-5828200" {
		t.Errorf("unbalanced quote: %v", m)
	}
	// Bad input is a 400 before payment.
	for _, in := range []map[string]any{{"query": "ab"}, {"query": "graphene", "max_papers": 9}, {"query": "graphene", "year_from": 1800}} {
		res, m := env.Call(t, http.MethodPost, "/v1/research-brief", in, "")
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d %v, want 400", in, res.StatusCode, m)
		}
	}
}
