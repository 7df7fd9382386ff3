package edgar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/apierr"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "upstreams", "sec-edgar", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fileServer serves body for every path with an ETag and Last-Modified,
// answering 304 to a matching If-None-Match; it counts full and
// conditional requests.
type fileServer struct {
	body       []byte
	full, cond atomic.Int64
	lastUA     atomic.Value
	status     atomic.Int64 // when set, answered instead
	retryAfter string
}

func (f *fileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.lastUA.Store(r.Header.Get("User-Agent"))
	if s := f.status.Load(); s != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		f.full.Add(1)
		w.WriteHeader(int(s))
		return
	}
	const etag = `"v1"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", "Tue, 24 Nov 2026 10:00:00 GMT")
	if r.Header.Get("If-None-Match") == etag {
		f.cond.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	f.full.Add(1)
	w.Write(f.body)
}

func newTestClient(t testing.TB, base string, mod func(*Config)) *Client {
	cfg := Config{TickersURL: base + "/files/company_tickers.json", DataURL: base, UserAgent: "Tests tests@example.org",
		Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	c := New(cfg)
	t.Cleanup(c.Close)
	return c
}

func TestTickers(t *testing.T) {
	fs := &fileServer{body: fixture(t, "company_tickers.json")}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	tests := []struct {
		in   string
		cik  CIK
		ok   bool
		name string
	}{
		{"AAPL", 320193, true, "Apple Inc."},
		{" aapl ", 320193, true, "Apple Inc."},
		{"BRK.B", 1067983, true, "BERKSHIRE HATHAWAY INC"},
		{"brk/b", 1067983, true, "BERKSHIRE HATHAWAY INC"},
		{"NOPE0", 0, false, ""},
	}
	for _, tc := range tests {
		got, ok, err := c.Lookup(context.Background(), tc.in)
		if err != nil || ok != tc.ok || got.CIK != tc.cik || got.Title != tc.name {
			t.Errorf("Lookup(%q) = %+v %v %v", tc.in, got, ok, err)
		}
	}
	if fs.full.Load() != 1 || fs.lastUA.Load() != "Tests tests@example.org" {
		t.Errorf("%d fetches, UA %v", fs.full.Load(), fs.lastUA.Load())
	}
}

func TestSubmissionsShapes(t *testing.T) {
	files := map[string][]byte{
		"/submissions/CIK0000320193.json":                 fixture(t, "submissions_CIK0000320193.json"),
		"/submissions/CIK0000350001.json":                 fixture(t, "submissions_CIK0000350001_no_filings.json"),
		"/submissions/CIK0001318605-submissions-001.json": fixture(t, "submissions_CIK0001318605-submissions-001.json"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	ctx := context.Background()

	apple, err := c.Submissions(ctx, 320193)
	if err != nil {
		t.Fatal(err)
	}
	if apple.CIK != 320193 || apple.Name != "Apple Inc." || apple.SIC != "3571" || apple.FiscalYearEnd != "0926" ||
		!slices.Equal(apple.Exchanges, []string{"Nasdaq"}) || apple.Addresses["business"].City != "CUPERTINO" {
		t.Errorf("apple header %+v", apple)
	}
	if n := apple.Filings.Recent.Len(); n != 1005 || apple.Filings.Recent.At(0).Form != "4" || len(apple.Filings.Files) != 1 {
		t.Errorf("apple filings: %d recent, files %+v", n, apple.Filings.Files)
	}

	// An entity with no filings at all and odd characters in its name.
	none, err := c.Submissions(ctx, 350001)
	if err != nil {
		t.Fatal(err)
	}
	if none.Filings.Recent.Len() != 0 || len(none.FormerNames) < 10 || none.Addresses["mailing"].Street2 != "1600 KING STREET" {
		t.Errorf("no-filings entity: %d filings, %d former names", none.Filings.Recent.Len(), len(none.FormerNames))
	}

	// A paged file of older filings: bare columns, no header.
	page, err := c.FilingsPage(ctx, "CIK0001318605-submissions-001.json")
	if err != nil {
		t.Fatal(err)
	}
	if page.Len() != 720 || page.At(0).AccessionNumber != "0000950103-18-001851" || page.At(0).Form != "SC 13G/A" {
		t.Errorf("page: %d filings, first %+v", page.Len(), page.At(0))
	}
	if _, err := c.FilingsPage(ctx, "../files/x.json"); !errors.Is(err, ErrNotFound) {
		t.Errorf("path in page name: %v", err)
	}
	if _, err := c.Submissions(ctx, 1); !errors.Is(err, ErrNotFound) || !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
}

// A company file is reused while fresh, then revalidated with its ETag:
// a 304 costs no parse and keeps the value.
func TestCacheRevalidation(t *testing.T) {
	fs := &fileServer{body: fixture(t, "companyfacts_CIK0000320193.trimmed.json")}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Now = clock; cfg.FreshFor = time.Minute })
	ctx := context.Background()

	first, err := c.CompanyFacts(ctx, 320193)
	if err != nil {
		t.Fatal(err)
	}
	if first.EntityName != "Apple Inc." || first.Facts["us-gaap"]["NetIncomeLoss"] == nil {
		t.Fatalf("facts: %q", first.EntityName)
	}
	again, _ := c.CompanyFacts(ctx, 320193)
	advance(2 * time.Minute)
	revalidated, err := c.CompanyFacts(ctx, 320193)
	if err != nil {
		t.Fatal(err)
	}
	if fs.full.Load() != 1 || fs.cond.Load() != 1 {
		t.Errorf("full %d conditional %d, want 1 and 1", fs.full.Load(), fs.cond.Load())
	}
	if again != first || revalidated != first {
		t.Error("cached value not reused")
	}
}

func TestKeepConcept(t *testing.T) {
	keep := func(tax, concept string) bool { return tax == "us-gaap" && concept == "Assets" }
	cf, err := DecodeCompanyFacts(fixture(t, "companyfacts_CIK0001835632.json"), keep)
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Facts["us-gaap"]) != 1 || len(cf.Facts["us-gaap"]["Assets"].Units["USD"]) != 42 || len(cf.Facts["dei"]) != 0 {
		t.Errorf("kept %d us-gaap, %d dei concepts", len(cf.Facts["us-gaap"]), len(cf.Facts["dei"]))
	}
}

// 429 and 503 are retried Attempts times and then reported as 503 with
// stable codes; 404 and other 4xx are not retried; 500 is retried then
// reported as 502.
func TestRetries(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		tries      int64
		want       *apierr.Error
		code       string
		httpStatus int
	}{
		{http.StatusTooManyRequests, "0", 3, ErrRateLimited, "upstream_rate_limited", 503},
		{http.StatusServiceUnavailable, "", 3, ErrUnavailable, "upstream_unavailable", 503},
		{http.StatusInternalServerError, "", 3, ErrStatus, "upstream_status", 502},
		{http.StatusForbidden, "", 1, ErrStatus, "upstream_status", 502},
		{http.StatusNotFound, "", 1, ErrNotFound, "edgar_not_found", 404},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			fs := &fileServer{retryAfter: tc.retryAfter}
			fs.status.Store(int64(tc.status))
			srv := httptest.NewServer(fs)
			defer srv.Close()
			c := newTestClient(t, srv.URL, nil)
			_, err := c.CompanyFacts(context.Background(), 320193)
			var ae *apierr.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &ae) || ae.Code != tc.code || ae.Status != tc.httpStatus {
				t.Fatalf("err %v (%+v), want %s %d", err, ae, tc.code, tc.httpStatus)
			}
			if n := fs.full.Load(); n != tc.tries {
				t.Errorf("%d requests, want %d", n, tc.tries)
			}
		})
	}
}

// A 503 followed by a success: the caller sees only the success.
func TestRetryRecovers(t *testing.T) {
	fs := &fileServer{body: fixture(t, "company_tickers.excerpt.json")}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fs.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	m, err := c.Tickers(context.Background())
	if err != nil || len(m) != 25 || n.Load() != 2 {
		t.Fatalf("%d tickers, %d requests, err %v", len(m), n.Load(), err)
	}
}

// recordingTransport notes when each request leaves for the upstream.
type recordingTransport struct {
	mu    sync.Mutex
	sent  []time.Time
	inner http.RoundTripper
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.sent = append(r.sent, time.Now())
	r.mu.Unlock()
	return r.inner.RoundTrip(req)
}

// 50 concurrent callers asking for 50 different companies: the requests
// that leave for EDGAR never exceed 10 in any one-second window (the
// limiter allows 8 a second with a burst of 1, so 9 at most).
func TestRateLimitConcurrent(t *testing.T) {
	body := []byte(`{"cik":1,"entityName":"X","facts":{}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	rt := &recordingTransport{inner: http.DefaultTransport}
	c := newTestClient(t, srv.URL, func(cfg *Config) {
		cfg.HTTPClient = &http.Client{Transport: rt}
		cfg.Rate = 50 // above the cap: must be clamped to MaxRate
	})
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			if _, err := c.CompanyFacts(context.Background(), CIK(1000+i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rt.mu.Lock()
	sent := slices.Clone(rt.sent)
	rt.mu.Unlock()
	if len(sent) != 50 {
		t.Fatalf("%d requests sent, want 50", len(sent))
	}
	slices.SortFunc(sent, func(a, b time.Time) int { return a.Compare(b) })
	worst := 0
	for i := range sent {
		j := i
		for j < len(sent) && sent[j].Sub(sent[i]) < time.Second {
			j++
		}
		worst = max(worst, j-i)
	}
	if worst > 10 {
		t.Errorf("%d requests within one second, EDGAR allows 10", worst)
	}
	t.Logf("busiest one-second window: %d requests", worst)
}
