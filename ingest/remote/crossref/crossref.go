// Package crossref is the nightly adapter for the Crossref REST API (kind
// "rest-cursor"): GET {url}?filter={filter},from-index-date:{date}
// &rows=1000&cursor=*&mailto=... and then cursor={message.next-cursor}
// until a page has no items. Each page body is kept as it came (the
// Crossref reader reads API envelopes) under DATA/state/<state>/pages/.
//
// The cursor is the index date: the next run asks from the day of the
// last good run minus the source's overlap (late-indexed records are not
// missed; the merger keeps the newest copy of a work seen twice). Requests
// go through the download client, which backs off on 429 and 5xx and
// spaces requests by the x-rate-limit-* headers; the polite pool's mailto
// comes from the pipeline's params.
//
// Resuming: Crossref's deep-paging cursors expire after a few minutes, so
// a run killed while paging starts the delta's paging again; a delta that
// was paged completely (checkpoint pending.json) is not fetched again.
package crossref

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/licence"
)

// Adapter implements remote.Adapter for Crossref.
type Adapter struct{}

// state is the committed checkpoint.
type state struct {
	// LastRun is the date (UTC, YYYY-MM-DD) of the last good run.
	LastRun string   `json:"last_run,omitempty"`
	Pages   []string `json:"pages"`
}

// pending is a delta being paged or paged completely, not yet published.
type pending struct {
	From     string   `json:"from"`
	Pages    []string `json:"pages"`
	Complete bool     `json:"complete"`
}

// page is the part of a /works response the adapter reads.
type page struct {
	Status  string `json:"status"`
	Message struct {
		NextCursor   string            `json:"next-cursor"`
		TotalResults int64             `json:"total-results"`
		Items        []json.RawMessage `json:"items"`
	} `json:"message"`
}

// item is the licence part of a work, for the pre-fetch licence counts.
type item struct {
	License []struct {
		URL            string `json:"URL"`
		ContentVersion string `json:"content-version"`
		DelayInDays    int    `json:"delay-in-days"`
		Start          struct {
			DateTime time.Time `json:"date-time"`
		} `json:"start"`
	} `json:"license"`
}

// maxPages bounds one delta (a runaway cursor); 10 000 pages of 1000 rows
// is ten million works.
const maxPages = 10_000

// Fetch implements remote.Adapter.
func (Adapter) Fetch(ctx context.Context, env *remote.Env) (*remote.Result, error) {
	var st state
	statePath := filepath.Join(env.Dir, remote.StateFile)
	pendPath := filepath.Join(env.Dir, "pending.json")
	if _, err := remote.LoadJSON(statePath, &st); err != nil {
		return nil, err
	}
	from, err := fromDate(env, st)
	if err != nil {
		return nil, err
	}
	// The summary's cursor is the date the next night starts from: this
	// night's start while it has not succeeded (a failed night is asked
	// again from the same date), the next one once it has.
	env.Stats.Cursor = from
	var pend pending
	if _, err := remote.LoadJSON(pendPath, &pend); err != nil {
		return nil, err
	}
	dir := filepath.Join(env.Dir, "pages")
	if pend.Complete && len(pend.Pages) > 0 && slices.Contains(st.Pages, pend.Pages[0]) {
		// Committed already; only its cleanup was interrupted.
		pend = pending{}
	}
	if pend.From == from && pend.Complete {
		env.Logger.Info("crossref: delta already paged, not fetched again", "from", from, "pages", len(pend.Pages))
		env.Stats.Add(0, int64(len(pend.Pages)), 0)
	} else {
		// An incomplete delta's cursor has expired: page it again.
		for _, p := range pend.Pages {
			os.Remove(filepath.Join(dir, p))
		}
		pend = pending{From: from}
		if err := pageAll(ctx, env, dir, &pend, pendPath); err != nil {
			return nil, err
		}
	}
	next := state{LastRun: env.Now.UTC().Format(time.DateOnly), Pages: append(slices.Clone(st.Pages), pend.Pages...)}
	if env.Stats.Cursor, err = fromDate(env, next); err != nil {
		return nil, err
	}
	files := make([]string, len(next.Pages))
	for i, p := range next.Pages {
		files[i] = filepath.Join(dir, p)
	}
	return &remote.Result{
		Files:   files,
		Delta:   true,
		New:     files[len(next.Pages)-len(pend.Pages):],
		Format:  "crossref",
		State:   next,
		Changed: len(pend.Pages) > 0,
		Cleanup: func() { os.Remove(pendPath) },
	}, nil
}

// fromDate is the from-index-date of this run's delta.
func fromDate(env *remote.Env, st state) (string, error) {
	c := env.Source.Cursor
	var overlap time.Duration
	if c != nil && c.Overlap != "" {
		d, err := time.ParseDuration(c.Overlap)
		if err != nil {
			return "", err
		}
		overlap = d
	}
	if st.LastRun != "" {
		t, err := time.Parse(time.DateOnly, st.LastRun)
		if err != nil {
			return "", fmt.Errorf("checkpoint last_run %q: %w", st.LastRun, err)
		}
		return t.Add(-overlap).Format(time.DateOnly), nil
	}
	if c != nil && c.Start != "" {
		return c.Start, nil
	}
	return env.Now.UTC().Add(-overlap).Format(time.DateOnly), nil
}

// pageAll pages the delta, saving each page and the checkpoint as it goes.
func pageAll(ctx context.Context, env *remote.Env, dir string, pend *pending, pendPath string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rows := env.Param("rows", "1000")
	if n, err := strconv.Atoi(rows); err != nil || n < 1 || n > 1000 {
		return fmt.Errorf("params.rows %q: want 1 to 1000", rows)
	}
	filter := env.Param("date_filter", "from-index-date") + ":" + pend.From
	if f := env.Param("filter", ""); f != "" {
		filter = f + "," + filter
	}
	stamp := env.Now.UTC().Format("20060102T150405Z")
	cursor := "*"
	for n := 1; n <= maxPages; n++ {
		q := url.Values{"filter": {filter}, "rows": {rows}, "cursor": {cursor}}
		if m := env.Param("mailto", ""); m != "" {
			q.Set("mailto", m)
		}
		body, err := env.Client.Bytes(ctx, env.Source.URL+"?"+q.Encode(), 512<<20)
		if err != nil {
			return err
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			return fmt.Errorf("%w: page %d: %v", remote.ErrUpstream, n, err)
		}
		if p.Status != "" && p.Status != "ok" {
			return fmt.Errorf("%w: page %d: status %q", remote.ErrUpstream, n, p.Status)
		}
		if n == 1 && env.Progress != nil {
			pages := (p.Message.TotalResults + int64(len(p.Message.Items)) - 1) / max(int64(len(p.Message.Items)), 1)
			env.Progress.Plan(int(pages), -1)
		}
		if len(p.Message.Items) == 0 {
			break
		}
		countLicences(env, p.Message.Items)
		name := fmt.Sprintf("%s-from-%s-%05d.json", stamp, pend.From, n)
		if err := remote.WriteFileAtomic(filepath.Join(dir, name), body); err != nil {
			return err
		}
		pend.Pages = append(pend.Pages, name)
		if err := remote.SaveJSON(pendPath, pend); err != nil {
			return err
		}
		env.Stats.Add(1, 0, 0)
		if env.Progress != nil {
			env.Progress.Done(1)
		}
		// The cursor may stay the same from page to page (it names a
		// server-side scroll): only an empty page ends the delta.
		if p.Message.NextCursor == "" {
			break
		}
		cursor = p.Message.NextCursor
	}
	pend.Complete = true
	return remote.SaveJSON(pendPath, pend)
}

// countLicences counts, per reason, the works whose Crossref licences the
// source would not publish. The pages are kept whole: the licence rules
// decide every record again when it is read (and may accept it through
// another source of the same work).
func countLicences(env *remote.Env, items []json.RawMessage) {
	for _, raw := range items {
		var it item
		if json.Unmarshal(raw, &it) != nil {
			env.Stats.Reject("unreadable")
			continue
		}
		var ev []licence.Evidence
		for _, l := range it.License {
			ev = append(ev, licence.Evidence{Kind: licence.KindCrossref, Value: l.URL, ContentVersion: l.ContentVersion,
				DelayDays: l.DelayInDays, Start: l.Start.DateTime})
		}
		d := licence.Decide(ev, env.Now)
		switch {
		case !d.Accepted:
			env.Stats.Reject("licence:" + string(d.Reason))
		case !slices.Contains(env.Families, d.Family):
			env.Stats.Reject("licence:excluded-" + string(d.Family))
		}
	}
}
