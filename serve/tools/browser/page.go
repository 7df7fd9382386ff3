package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// Errors of a page load. None is charged.
var (
	// errPageTimeout: the call's deadline passed (504).
	errPageTimeout = apierr.New(apierr.ErrUpstreamTimeout, "upstream_timeout", "the page did not load in time")
	// errPageLoad: the browser could not load the document (502).
	errPageLoad = apierr.New(apierr.ErrUpstream, "upstream_error", "the page could not be loaded")
	// errPageForbidden: the document, or a redirect of it, aims at a
	// refused (non-public) target (403).
	errPageForbidden = apierr.New(apierr.ErrForbidden, "forbidden_target", "the page or one of its redirects resolves to a non-public address")
)

// lifecycle names of Page.lifecycleEvent for each wait_until value; the
// network ones have Puppeteer's meaning (no more than 0 or 2 connections
// for 500 ms).
var lifecycleName = map[string]string{
	"load":             "load",
	"domcontentloaded": "DOMContentLoaded",
	"networkidle0":     "networkIdle",
	"networkidle2":     "networkAlmostIdle",
}

// request is one network request of the page, as the browser saw it.
type request struct {
	url      string
	typ      network.ResourceType
	status   int64
	mime     string
	bytes    float64 // encoded (transfer) size
	failed   bool
	errText  string
	finished bool
	fromSW   bool
}

// recorder listens to one tab: lifecycle events of the main frame and
// every network request. Its callback runs in the tab's event loop, so it
// only records.
type recorder struct {
	frame cdp.FrameID
	life  chan *page.EventLifecycleEvent

	mu       sync.Mutex
	reqs     map[network.RequestID]*request
	order    []network.RequestID
	docID    network.RequestID // the main document's request
	docURLs  []string          // the document URL and every redirect target
	docResp  *network.Response // the final document response
	redirect []Hop
}

// Hop is one redirect of the main document.
type Hop struct {
	URL      string `json:"url"`
	Status   int64  `json:"status"`
	Location string `json:"location"`
}

func newRecorder(ctx context.Context) (*recorder, error) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil {
		return nil, errors.New("browser: no tab")
	}
	r := &recorder{frame: cdp.FrameID(c.Target.TargetID), life: make(chan *page.EventLifecycleEvent, 128),
		reqs: map[network.RequestID]*request{}}
	if err := chromedp.Listen(ctx, r.on); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *recorder) on(ev any) {
	switch ev := ev.(type) {
	case *page.EventLifecycleEvent:
		if ev.FrameID == r.frame {
			select {
			case r.life <- ev:
			default:
			}
		}
	case *network.EventRequestWillBeSent:
		r.mu.Lock()
		defer r.mu.Unlock()
		if ev.Request == nil {
			return
		}
		isDoc := ev.Type == network.ResourceTypeDocument && ev.FrameID == r.frame
		if q, ok := r.reqs[ev.RequestID]; ok && ev.RedirectResponse != nil {
			// A redirect reuses the request id.
			if isDoc {
				r.redirect = append(r.redirect, Hop{URL: q.url, Status: ev.RedirectResponse.Status,
					Location: headerString(ev.RedirectResponse.Headers, "Location")})
			}
			q.url = ev.Request.URL
			q.bytes += ev.RedirectResponse.EncodedDataLength
		} else {
			r.reqs[ev.RequestID] = &request{url: ev.Request.URL, typ: ev.Type}
			r.order = append(r.order, ev.RequestID)
		}
		if isDoc {
			r.docID = ev.RequestID
			r.docURLs = append(r.docURLs, ev.Request.URL)
		}
	case *network.EventResponseReceived:
		r.mu.Lock()
		defer r.mu.Unlock()
		q, ok := r.reqs[ev.RequestID]
		if !ok || ev.Response == nil {
			return
		}
		q.status, q.mime, q.typ = ev.Response.Status, ev.Response.MimeType, ev.Type
		q.fromSW = ev.Response.FromServiceWorker
		if ev.RequestID == r.docID {
			r.docResp = ev.Response
		}
	case *network.EventLoadingFinished:
		r.mu.Lock()
		defer r.mu.Unlock()
		if q, ok := r.reqs[ev.RequestID]; ok {
			q.bytes += ev.EncodedDataLength
			q.finished = true
		}
	case *network.EventLoadingFailed:
		r.mu.Lock()
		defer r.mu.Unlock()
		if q, ok := r.reqs[ev.RequestID]; ok {
			q.failed, q.errText, q.finished = true, ev.ErrorText, true
			if ev.BlockedReason != "" {
				q.errText = "blocked by the browser: " + string(ev.BlockedReason)
			}
		}
	}
}

func headerString(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// loaded is what navigation found out about the main document.
type loaded struct {
	FinalURL string
	Status   int64
	Header   network.Headers
	Protocol string
	Security string // Chrome's security state of the document
	TimedOut bool   // the wait_until condition was not met within the wait budget
}

// navigate loads rawURL in the tab and waits for waitUntil, at most
// waitMax; when that passes the page is used as it is (TimedOut). A failed
// document load is an error: forbidden_target when the proxy refused the
// document or a redirect of it, upstream_timeout at the call deadline,
// upstream_error otherwise.
func (r *recorder) navigate(ctx context.Context, px *proxy, rawURL, waitUntil string, waitMax time.Duration) (*loaded, error) {
	want := lifecycleName[waitUntil]
	if want == "" {
		want = "load"
	}
	// Page.navigate returns when the document's response arrives (or the
	// navigation fails), so it too is bounded by the wait budget: a
	// document that does not arrive within it is a timeout.
	nav, cancelNav := context.WithTimeout(ctx, waitMax)
	res, err := chromedp.Call(nav, page.Navigate, page.NavigateParams{URL: rawURL})
	cancelNav()
	if err == nil && res.ErrorText != "" {
		err = errors.New(res.ErrorText)
	}
	if err != nil {
		if nav.Err() != nil {
			err = context.DeadlineExceeded
		}
		return nil, r.loadError(ctx, px, rawURL, err)
	}
	wait, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	out := &loaded{}
	committed := false
wait:
	for {
		select {
		case ev := <-r.life:
			if res.LoaderID != "" && ev.LoaderID != res.LoaderID {
				continue
			}
			committed = committed || ev.Name == "commit" || ev.Name == "DOMContentLoaded" || ev.Name == "load"
			if ev.Name == want {
				break wait
			}
		case <-wait.Done():
			if ctx.Err() != nil {
				return nil, r.loadError(ctx, px, rawURL, ctx.Err())
			}
			out.TimedOut = true
			break wait
		}
	}
	r.mu.Lock()
	resp := r.docResp
	r.mu.Unlock()
	if resp == nil {
		if !committed && out.TimedOut {
			return nil, r.loadError(ctx, px, rawURL, context.DeadlineExceeded)
		}
		out.FinalURL = rawURL
		return out, nil
	}
	out.FinalURL, out.Status, out.Header, out.Protocol = resp.URL, resp.Status, resp.Headers, resp.Protocol
	out.Security = string(resp.SecurityState)
	return out, nil
}

// loadError classifies a failed document load.
func (r *recorder) loadError(ctx context.Context, px *proxy, rawURL string, err error) error {
	r.mu.Lock()
	urls := append([]string{rawURL}, r.docURLs...)
	r.mu.Unlock()
	for _, u := range urls {
		if pu, perr := url.Parse(u); perr == nil && px.blockedHost(pu.Hostname()) {
			return errPageForbidden
		}
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return errPageTimeout
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "net::") {
		return apierr.New(apierr.ErrUpstream, "upstream_error", "the page could not be loaded ("+msg+")")
	}
	return fmt.Errorf("browser: navigate: %w: %w", errPageLoad, err)
}

// preflight checks the URL with the guarded client before the browser
// goes there: robots.txt of every hop, and a redirect chain that ends in a
// refused target. Only refusals stop the call; other failures (a server
// that mishandles HEAD) are left to the browser.
func preflight(ctx context.Context, fc *fetch.Client, rawURL string) error {
	_, err := fc.Do(ctx, "HEAD", rawURL, fetch.Options{MaxBytes: 1, AllowTruncated: true})
	if err != nil && (errors.Is(err, apierr.ErrForbidden) || errors.Is(err, apierr.ErrInvalidInput)) {
		return err
	}
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errPageTimeout
	}
}
