package finance

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// sendLog is a RoundTripper noting when each request leaves for EDGAR.
type sendLog struct {
	mu    sync.Mutex
	sent  []time.Time
	paths map[string]int
}

func (s *sendLog) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.sent = append(s.sent, time.Now())
	s.paths[r.URL.Path]++
	s.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// busiest is the largest number of times within any one second.
func busiest(ts []time.Time) int {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	worst := 0
	for i := range ts {
		j := i
		for j < len(ts) && ts[j].Sub(ts[i]) < time.Second {
			j++
		}
		worst = max(worst, j-i)
	}
	return worst
}

// 50 concurrent finance_snapshot calls for 50 different companies, from a
// cold cache: every request towards EDGAR (two per company: its facts and
// its filing list) goes through the one limiter (never more than 10 in a
// second), and the ticker map is fetched once for all of them.
func TestFinanceConcurrentCallsRespectRateLimit(t *testing.T) {
	// A ticker map in company_tickers.json's format with 50 made-up
	// companies, each answered with the restatement sample's facts (its
	// submissions file too, which decodes to an empty filing list).
	var entries []string
	for i := range 50 {
		entries = append(entries, fmt.Sprintf(`"%d":{"cik_str":%d,"ticker":"T%02d","title":"TEST %02d"}`, i, 9800000+i, i, i))
	}
	tickers := "{" + strings.Join(entries, ",") + "}"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/files/company_tickers.json" {
			fmt.Fprint(w, tickers)
			return
		}
		fmt.Fprint(w, SampleRestatedFacts)
	}))
	defer srv.Close()
	log := &sendLog{paths: map[string]int{}}
	f := New(Config{EDGAR: edgar.Config{TickersURL: srv.URL + "/files/company_tickers.json", DataURL: srv.URL,
		HTTPClient: &http.Client{Transport: log}}})
	defer f.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			out, err := f.Finance(context.Background(), fmt.Sprintf("t%02d", i))
			if err == nil && out.CIK != fmt.Sprintf("%010d", 9800000+i) {
				err = fmt.Errorf("T%02d answered for CIK %s", i, out.CIK)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.sent) != 101 || log.paths["/files/company_tickers.json"] != 1 {
		t.Errorf("%d requests, ticker map %d times; want 101 and 1", len(log.sent), log.paths["/files/company_tickers.json"])
	}
	if n := busiest(log.sent); n > 10 {
		t.Errorf("%d requests to EDGAR within one second; the limit is 10", n)
	} else {
		t.Logf("busiest one-second window: %d requests", n)
	}
}
