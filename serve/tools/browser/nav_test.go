package browser

import (
	"context"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"errors"
	"net/http"
	"testing"
)

// TestRedirectToPrivateInBrowser skips the preflight, as if DNS had
// answered the guarded client and the browser differently: the browser's
// own redirect into a private address is refused by the proxy and the call
// fails with forbidden_target.
func TestRedirectToPrivateInBrowser(t *testing.T) {
	t.Parallel()
	srv := site(t, map[string]http.HandlerFunc{
		"/r": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		},
	})
	px, err := newProxy(shared.fc, nil, shared.cfg.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	s, err := shared.pool.acquire(ctx(t), px)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	rec, err := newRecorder(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rec.navigate(s.ctx, px, srv.URL+"/r", "load", shared.cfg.WaitTimeout)
	if !errors.Is(err, errPageForbidden) {
		t.Fatalf("err = %v, want forbidden_target", err)
	}
	if b := px.Blocked(); len(b) == 0 || b[0].Target != "169.254.169.254:80" {
		t.Errorf("blocked %+v", b)
	}
}

// TestCrashRecovery kills Chromium between calls: the next call starts a
// new browser and succeeds.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	tools := newTestTools(t.TempDir(), Config{})
	defer tools.Close()
	srv := site(t, map[string]http.HandlerFunc{"/": html(`<h1>ok</h1>`)})
	in := ScreenshotInput{URL: srv.URL + "/", Width: 320, Height: 240, WaitUntil: "load"}
	if _, err := tools.Screenshot(ctx(t), in); err != nil {
		t.Fatal(err)
	}
	if err := tools.pool.kill(); err != nil {
		t.Fatal(err)
	}
	// The dead browser is noticed through its root context; the call
	// after it gets a new one.
	tools.pool.mu.Lock()
	dead := tools.pool.cur.ctx
	tools.pool.mu.Unlock()
	<-dead.Done()
	if _, err := tools.Screenshot(ctx(t), in); err != nil {
		t.Fatalf("after a crash: %v", err)
	}
	if tools.pool.started != 2 {
		t.Errorf("browsers started: %d, want 2", tools.pool.started)
	}
}

// TestHungBrowserReplaced stops Chromium (SIGSTOP): the call in it runs into
// its deadline, the health check finds the browser mute and kills it, and
// the next call gets a new browser.
func TestHungBrowserReplaced(t *testing.T) {
	t.Parallel()
	tools := newTestTools(t.TempDir(), Config{CallTimeout: 20 * time.Second, WaitTimeout: 10 * time.Second})
	defer tools.Close()
	srv := site(t, map[string]http.HandlerFunc{"/": html(`<h1>ok</h1>`)})
	in := ScreenshotInput{URL: srv.URL + "/", Width: 320, Height: 240, WaitUntil: "load"}
	if _, err := tools.Screenshot(ctx(t), in); err != nil {
		t.Fatal(err)
	}
	tools.pool.mu.Lock()
	hung := tools.pool.cur
	tools.pool.mu.Unlock()
	proc := chromedp.FromContext(hung.ctx).Browser.Process()
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer proc.Signal(syscall.SIGCONT)
	// A short deadline for the call in the stopped browser (the config is
	// read when a call starts).
	tools.cfg.CallTimeout, tools.cfg.WaitTimeout = 3*time.Second, 2*time.Second
	if _, err := tools.Screenshot(ctx(t), in); err == nil {
		t.Fatal("a call in a stopped browser succeeded")
	}
	select {
	case <-hung.ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the hung browser was not replaced")
	}
	// The short deadline was for the hung call; a loaded test machine
	// needs more for a new browser's first page.
	tools.cfg.CallTimeout, tools.cfg.WaitTimeout = 20*time.Second, 10*time.Second
	if _, err := tools.Screenshot(ctx(t), in); err != nil {
		t.Fatalf("after replacing the hung browser: %v", err)
	}
	if tools.pool.started != 2 {
		t.Errorf("browsers started: %d", tools.pool.started)
	}
}

// TestNoStateBetweenCalls: a cookie and localStorage set in one call are
// gone in the next (each call has its own browser context).
func TestNoStateBetweenCalls(t *testing.T) {
	t.Parallel()
	srv := site(t, map[string]http.HandlerFunc{
		"/set": func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "server", Value: "1", Path: "/"})
			html(`<script>document.cookie = "page=1; path=/"; localStorage.setItem("k", "v");</script>`)(w, r)
		},
		"/get": html(`<p>read</p>`),
	})
	read := func(path string) string {
		var got string
		err := shared.page(ctx(t), srv.URL+path, func(c context.Context, rec *recorder, px *proxy) error {
			if _, err := rec.navigate(c, px, srv.URL+path, "load", shared.cfg.WaitTimeout); err != nil {
				return err
			}
			var err error
			got, err = chromedp.Run(c, chromedp.Evaluate[string](`document.cookie + "|" + (localStorage.getItem("k") || "")`))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := read("/set"); got != "server=1; page=1|v" {
		t.Fatalf("in the setting call: %q", got)
	}
	if got := read("/get"); got != "|" {
		t.Errorf("state leaked into the next call: %q", got)
	}
}
