package knowledge

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
)

// progress follows a table load, for Retry-After and the status endpoint.
type progress struct {
	rows, total atomic.Int64

	mu       sync.Mutex
	snapshot string
	started  time.Time
	took     time.Duration
	err      error
}

func (p *progress) begin(snap string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rows.Store(0)
	p.total.Store(0)
	p.snapshot, p.started, p.took, p.err = snap, now, 0, nil
}

func (p *progress) end(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.took, p.err = time.Since(p.started), err
}

// Bounds of the Retry-After of specs_loading.
const (
	minRetry = time.Second
	maxRetry = time.Minute
	// guessRetry is the answer before the first rows give a rate.
	guessRetry = 5 * time.Second
)

// remaining estimates how long the load in progress still takes, from
// the rows read so far and their rate.
func (p *progress) remaining(now time.Time) time.Duration {
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	rows, total := p.rows.Load(), p.total.Load()
	if rows <= 0 || total <= 0 || started.IsZero() {
		return guessRetry
	}
	// The rows left at the rate so far, plus the indexing after the last
	// row (about a tenth of the load).
	elapsed := now.Sub(started)
	left := time.Duration(float64(elapsed) * float64(max(total-rows, 0)) / float64(rows))
	return min(max(left+elapsed/10, minRetry), maxRetry)
}

// Specs table states reported by /v1/specs/status.
const (
	StateLoading     = "loading"
	StateReady       = "ready"
	StateUnavailable = "unavailable"
)

// StatusOutput is GET /v1/specs/status's answer.
type StatusOutput struct {
	// State is "loading" (the spec tools answer 503 specs_loading),
	// "ready", or "unavailable" (the snapshot has no specs table, or it
	// could not be read: 503 specs_unavailable).
	State string `json:"state"`
	// Snapshot is the snapshot of the table being served, or of the one
	// loading when none is served yet.
	Snapshot   string `json:"snapshot,omitempty"`
	Statements int    `json:"statements"`
	Documents  int    `json:"documents"`
	// Loading is set while a table loads (at start, or after a snapshot
	// switch while the previous table still serves).
	Loading *LoadingOutput `json:"loading,omitempty"`
	// LoadSeconds is how long the last completed load took.
	LoadSeconds float64 `json:"load_seconds,omitempty"`
}

// LoadingOutput is a load in progress.
type LoadingOutput struct {
	Snapshot          string `json:"snapshot"`
	RowsRead          int64  `json:"rows_read"`
	RowsTotal         int64  `json:"rows_total"`
	RetryAfterSeconds int    `json:"retry_after_seconds"`
}

// Status reports the specs table's state.
func (t *Tools) Status() *StatusOutput {
	out := &StatusOutput{State: StateUnavailable}
	t.progress.mu.Lock()
	loadingSnap, took := t.progress.snapshot, t.progress.took
	t.progress.mu.Unlock()
	loading := t.reloading.Load()
	if tab := t.tab.Load(); tab != nil && (tab.entries != nil || tab.byDoc != nil) {
		out.State, out.Snapshot, out.Statements, out.Documents = StateReady, tab.snapID, len(tab.entries), len(tab.docs)
	} else if loading {
		out.State, out.Snapshot = StateLoading, loadingSnap
	}
	if loading {
		out.Loading = &LoadingOutput{Snapshot: loadingSnap, RowsRead: t.progress.rows.Load(), RowsTotal: t.progress.total.Load(),
			RetryAfterSeconds: int((t.progress.remaining(time.Now()) + time.Second - 1) / time.Second)}
	} else if took > 0 {
		out.LoadSeconds = took.Seconds()
	}
	return out
}

func (t *Tools) statusEndpoint() *registry.Endpoint {
	return registry.Spec[registry.NoInput]{
		Name: "specs_status", Method: http.MethodGet, Path: "/v1/specs/status", Group: registry.GroupTools,
		Summary: "Whether the specification table behind query_specs and search_specs is loaded, loading or unavailable.",
		Description: "The server starts (and switches snapshots) without waiting for the specification table; while the " +
			"first table loads the spec tools answer 503 specs_loading with Retry-After, before any payment. " +
			"This says which, with the load's progress.",
		Output: StatusOutput{},
		Handle: func(ctx context.Context, _ *registry.NoInput) (*registry.Result, error) {
			return &registry.Result{Value: t.Status()}, nil
		},
	}.Endpoint()
}
