package bench

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
)

func TestSummarise(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := summarise(ds)
	if l.N != 100 || l.P50 != 50*time.Millisecond || l.P95 != 95*time.Millisecond || l.P99 != 99*time.Millisecond || l.Max != 100*time.Millisecond {
		t.Fatalf("%+v", l)
	}
	if l := summarise(nil); l != (Latency{}) {
		t.Fatalf("empty: %+v", l)
	}
	if l := summarise([]time.Duration{7}); l.P50 != 7 || l.P99 != 7 {
		t.Fatalf("one: %+v", l)
	}
}

func TestSlowest(t *testing.T) {
	targets := []target{{"a", "/1", "one"}, {"a", "/2", "two"}, {"b", "/3", "three"}, {"b", "/4", ""}, {"a", "/1", "one"}}
	ms := time.Millisecond
	samples := [][2]int{{0, 1}, {0, 50}, {0, 2}, {1, 9}, {1, 8}, {2, 3}, {3, 100}, {4, 1}}
	queries := medians(targets, func(yield func(int, time.Duration) bool) {
		for _, s := range samples {
			if !yield(s[0], time.Duration(s[1])*ms) {
				return
			}
		}
	})
	// Targets 0 and 4 are one query; the unlabelled one is none.
	wantQ := map[string]SlowQuery{"one": {"one", "a", 1 * ms, 4}, "two": {"two", "a", 8 * ms, 2}, "three": {"three", "b", 3 * ms, 1}}
	if !maps.Equal(queries, wantQ) {
		t.Errorf("medians %+v, want %+v", queries, wantQ)
	}
	// "one" has the slowest request but "two" the higher median.
	want := map[string]SlowQuery{"a": wantQ["two"], "b": wantQ["three"]}
	if got := slowest(queries); !maps.Equal(got, want) {
		t.Errorf("slowest %+v, want %+v", got, want)
	}
}

func TestDrive(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/bad" {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		w.Write([]byte(`{"total": 3}`))
	}))
	defer srv.Close()
	targets := []target{{"a", "/a", "qa"}, {"b", "/b", ""}, {"a", "/bad", "bad"}}
	res := drive(context.Background(), srv.URL, targets, 2, 20*time.Millisecond, 200*time.Millisecond)
	if res.Requests == 0 || res.Errors == 0 || res.RPS <= 0 || res.FirstError == "" {
		t.Fatalf("%+v", res)
	}
	// Every third request fails; the warm-up is not recorded. Each of the
	// two workers cycles a, b, bad from its own offset and may stop right
	// after a failure, so it records at most one error more than half its
	// successes.
	if got := res.Requests + res.Errors; int64(got) >= hits.Load() || res.Errors*2 > res.Requests+4 {
		t.Errorf("recorded %d+%d of %d requests", res.Requests, res.Errors, hits.Load())
	}
	if a, b := res.ByClass["a"], res.ByClass["b"]; a.N == 0 || b.N == 0 || a.N+b.N != res.Requests {
		t.Errorf("classes %+v", res.ByClass)
	}
	// Only recorded, labelled targets are named: /bad always fails, b has
	// no label.
	if q, ok := res.Slowest["a"]; !ok || q.Label != "qa" || q.N != res.ByClass["a"].N || len(res.Slowest) != 1 {
		t.Errorf("slowest %+v", res.Slowest)
	}

	// Totals agree with themselves; a failing system is counted as
	// refusing, not compared.
	s := system{name: "x", base: srv.URL, searchPath: func(q squery, _ int, _ string) string { return "/a?q=" + urlQuery(q.text()) }}
	bad := system{name: "bad", base: srv.URL, searchPath: func(squery, int, string) string { return "/bad" }}
	qs := []squery{{class: classTwo, node: and(word("one"), word("two"))}, {class: classRare, node: word("three")}}
	got := compareByClass(context.Background(), []system{s, s, bad}, qs, 5, time.Minute)
	if a := got["x"]; len(a) != 2 || a[0].Class != classRare || a[0].Equal != 1 || a[1].Equal != 1 {
		t.Errorf("self: %+v", a)
	}
	if b := got["bad"]; len(b) != 2 || b[0].Failed != 1 || b[0].Compared != 0 {
		t.Errorf("bad: %+v", b)
	}
}

func TestProcMemory(t *testing.T) {
	m := procMemory(os.Getpid())
	if m.RSS <= 0 || m.HWM < m.RSS {
		t.Fatalf("%+v", m)
	}
	if m := procMemory(-1); m != (Memory{}) {
		t.Fatalf("no process: %+v", m)
	}
}

func TestDocTerms(t *testing.T) {
	d := &ingest.Document{Title: "The neural basis of SARS-CoV-2 entry", Keywords: []string{"Zebrafish", "a b"},
		Authors: []ingest.Author{{Name: "José Müller"}}}
	got := docTerms(d)
	want := []string{"neural", "basis", "sars", "cov", "entry", "zebrafish", "jose", "muller"}
	if !slices.Equal(got, want) {
		t.Fatalf("docTerms = %q, want %q", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{}, {Dir: t.TempDir()}, {Dir: t.TempDir(), N: 10}} {
		if _, err := Run(context.Background(), c); !errors.Is(err, ErrConfig) {
			t.Errorf("Run(%+v) = %v, want ErrConfig", c, err)
		}
	}
}

func TestMarkdown(t *testing.T) {
	r := &Report{N: 1000, Results: []Result{
		{Scenario: "search", System: "openshelf", Requests: 10, RPS: 5, All: Latency{P50: time.Millisecond},
			ByClass: map[string]Latency{classTwo: {N: 4, P50: 2 * time.Millisecond}},
			Slowest: map[string]SlowQuery{classOr: {Label: "a OR b|c", Median: 3 * time.Millisecond, N: 5}},
			Queries: map[string]SlowQuery{"x y": {Label: "x y", Class: classTwo, Median: 2 * time.Millisecond},
				"x z": {Label: "x z", Class: classTwo, Median: 5 * time.Millisecond}}},
		{Scenario: "search", System: "PostgreSQL", Requests: 8, RPS: 4, ByClass: map[string]Latency{classTwo: {N: 3}},
			Queries: map[string]SlowQuery{"x y": {Label: "x y", Class: classTwo, Median: 7 * time.Millisecond},
				"x z": {Label: "x z", Class: classTwo, Median: 4 * time.Millisecond},
				"x w": {Label: "x w", Class: classTwo, Median: 9 * time.Millisecond}}},
		{Scenario: scenarioFirst, System: "openshelf", Requests: 3, All: Latency{N: 3, P99: 4 * time.Millisecond},
			ByClass: map[string]Latency{classFirstPrefix: {N: 2, P50: time.Millisecond, P99: 4 * time.Millisecond, Max: 4 * time.Millisecond}},
			Slowest: map[string]SlowQuery{classFirstPrefix: {Label: "co*", Median: 4 * time.Millisecond, N: 1}}},
	}, ByClass: map[string][]ClassAgreement{"PostgreSQL": {{Class: classPhrase, Compared: 2, Equal: 1, Example: "a|b"}}},
		Quality: []Quality{{System: "Lucene", Probes: 4, WordsAt1: 1, WordsAt10: 2, PhraseAt1: 3, PhraseAt10: 4}},
		Deep:    []Deep{{System: "PostgreSQL", Queries: 1, Depth: 2, Pages: 2}},
		Turns:   []Turn{{System: "openshelf", Read: 3 << 20, Took: 1500 * time.Millisecond}, {System: "PostgreSQL", Read: 1 << 20, Skipped: 2}}}
	var b strings.Builder
	r.Markdown(&b)
	out := b.String()
	for _, want := range []string{"| search | openshelf | 0 | 10 | 5 | 1.0 |", "| 2 words (AND) | 2.0 / 0.0 (n=4) | 0.0 / 0.0 (n=3) |",
		"| phrase, 2–4 words | 1 / 2 | 0 | a\\|b |", "| Lucene | 4 | 0.250 | 0.500 | 0.750 | 1.000 | 0 |",
		"| PostgreSQL | 1 × 2 | 2 |", "| a OR b | `a OR b\\|c` 3.0 (5) | |",
		"| 2 words (AND) | 1 of 2, 2.0 / 4.0 |", "| first: prefix* of 2–5 letters | 1.0 / 4.0 / 4.0 (n=2) |",
		"| all | 0.0 / 4.0 / 0.0 (n=3) |", "| first: prefix* of 2–5 letters | `co*` 4.0 |",
		"others' dropped from the cache (-turns): openshelf 3 MiB in 1.5s; PostgreSQL 1 MiB in 0s (2 files could not be read or dropped)."} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestFacetChecks: 0 recounts the default 10 faceted queries, a negative
// count none (openshelf bench -facet-checks 0 passes -1).
func TestFacetChecks(t *testing.T) {
	for in, want := range map[int]int{0: 10, -1: -1, 3: 3} {
		c := Config{Dir: t.TempDir(), N: 1000, Server: []string{"openshelf"}, FacetChecks: in}
		if err := c.defaults(); err != nil {
			t.Fatal(err)
		}
		if c.FacetChecks != want {
			t.Errorf("FacetChecks %d: %d after defaults, want %d", in, c.FacetChecks, want)
		}
	}
}
