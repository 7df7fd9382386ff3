package bench

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// target is one request of a scenario, tagged with its class; label
// names it in the report of slowest queries (empty: not reported).
type target struct {
	class, path, label string
}

// Latency summarises a set of request durations.
type Latency struct {
	N                  int
	P50, P95, P99, Max time.Duration
}

// Result is one scenario measured against one system.
type Result struct {
	Scenario, System string
	Concurrency      int
	Requests         int
	Errors           int
	Elapsed          time.Duration
	RPS              float64
	All              Latency
	ByClass          map[string]Latency
	// Slowest is, per class, the labelled target of highest median
	// latency over its repeats: one slow query, not one unlucky request.
	Slowest map[string]SlowQuery
	// Queries holds every labelled target's median, by label: the same
	// query across systems, for a peer that answers only a few.
	Queries    map[string]SlowQuery
	FirstError string
}

// SlowQuery is a labelled target's median latency over its N recorded
// requests.
type SlowQuery struct {
	Label, Class string
	Median       time.Duration
	N            int
}

func summarise(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration {
		i := int(q*float64(len(ds))+0.5) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return Latency{N: len(ds), P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: ds[len(ds)-1]}
}

// drive sends GET base+path requests from conc workers, cycling through
// targets in order (each request takes the next one), for warmup (not
// recorded) then d. A request fails on a transport error or a status other
// than 200; every body is read to the end.
func drive(ctx context.Context, base string, targets []target, conc int, warmup, d time.Duration) Result {
	return runTargets(ctx, base, targets, conc, func(run func(more func(int64) bool, record bool) time.Duration) time.Duration {
		if warmup > 0 {
			until := time.Now().Add(warmup)
			run(func(int64) bool { return time.Now().Before(until) }, false)
		}
		until := time.Now().Add(d)
		return run(func(int64) bool { return time.Now().Before(until) }, true)
	})
}

// driveOnce sends each target once, from conc workers, without a
// warm-up: first searches, each query new to the server's caches.
func driveOnce(ctx context.Context, base string, targets []target, conc int) Result {
	return runTargets(ctx, base, targets, conc, func(run func(more func(int64) bool, record bool) time.Duration) time.Duration {
		return run(func(i int64) bool { return i < int64(len(targets)) }, true)
	})
}

// runTargets measures requests to targets: phases calls run for each
// phase, whose workers each take the next target (the i-th request takes
// target i modulo their number) while more(i), recording their latencies
// if record, and returns the recorded phase's elapsed time.
func runTargets(ctx context.Context, base string, targets []target, conc int,
	phases func(run func(more func(int64) bool, record bool) time.Duration) time.Duration) Result {
	tr := &http.Transport{MaxIdleConns: conc, MaxIdleConnsPerHost: conc, DisableCompression: true,
		IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	type sample struct {
		class, target int
		d             time.Duration
	}
	classes := map[string]int{}
	var names []string
	for _, t := range targets {
		if _, ok := classes[t.class]; !ok {
			classes[t.class] = len(names)
			names = append(names, t.class)
		}
	}
	var (
		mu       sync.Mutex
		samples  []sample
		errs     int
		firstErr string
	)
	one := func(t target) (time.Duration, error) {
		start := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+t.path, nil)
		if err != nil {
			return 0, err
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		el := time.Since(start)
		if err != nil {
			return 0, err
		}
		if res.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("%s: status %d", t.path, res.StatusCode)
		}
		return el, nil
	}
	var next atomic.Int64 // shared by the phases: a recorded phase goes on after the warm-up's targets
	run := func(more func(int64) bool, record bool) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < conc; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []sample
				nerr, ferr := 0, ""
				for ctx.Err() == nil {
					i := next.Add(1) - 1
					if !more(i) {
						break
					}
					ti := int(i % int64(len(targets)))
					t := targets[ti]
					el, err := one(t)
					if !record {
						continue
					}
					if err != nil {
						if nerr == 0 {
							ferr = err.Error()
						}
						nerr++
						continue
					}
					mine = append(mine, sample{classes[t.class], ti, el})
				}
				mu.Lock()
				samples = append(samples, mine...)
				errs += nerr
				if firstErr == "" {
					firstErr = ferr
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	elapsed := phases(run)

	res := Result{Concurrency: conc, Requests: len(samples), Errors: errs, Elapsed: elapsed,
		ByClass: map[string]Latency{}, FirstError: firstErr}
	all := make([]time.Duration, len(samples))
	per := make([][]time.Duration, len(names))
	for i, s := range samples {
		all[i] = s.d
		per[s.class] = append(per[s.class], s.d)
	}
	res.All = summarise(all)
	if len(names) > 1 {
		for i, n := range names {
			res.ByClass[n] = summarise(per[i])
		}
	}
	res.Queries = medians(targets, func(yield func(int, time.Duration) bool) {
		for _, s := range samples {
			if !yield(s.target, s.d) {
				return
			}
		}
	})
	res.Slowest = slowest(res.Queries)
	if elapsed > 0 {
		res.RPS = float64(len(samples)) / elapsed.Seconds()
	}
	return res
}

// medians returns, by label, the median of each labelled target's
// recorded durations (targets with the same label are one query).
func medians(targets []target, samples iter.Seq2[int, time.Duration]) map[string]SlowQuery {
	per := map[string][]time.Duration{}
	for t, d := range samples {
		if l := targets[t].label; l != "" {
			per[l] = append(per[l], d)
		}
	}
	out := make(map[string]SlowQuery, len(per))
	for _, t := range targets {
		if ds, ok := per[t.label]; ok {
			out[t.label] = SlowQuery{Label: t.label, Class: t.class, Median: summarise(ds).P50, N: len(ds)}
			delete(per, t.label)
		}
	}
	return out
}

// slowest returns, per class, the query of highest median.
func slowest(queries map[string]SlowQuery) map[string]SlowQuery {
	out := map[string]SlowQuery{}
	for _, q := range queries {
		if cur, ok := out[q.Class]; !ok || q.Median > cur.Median || q.Median == cur.Median && q.Label < cur.Label {
			out[q.Class] = q
		}
	}
	return out
}

func urlQuery(s string) string { return url.QueryEscape(s) }
