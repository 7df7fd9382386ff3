package download

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a Sleep that records the waits instead of waiting.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func sum(b []byte) string {
	h := md5.Sum(b)
	return hex.EncodeToString(h[:])
}

func TestFile(t *testing.T) {
	body := []byte("PubmedArticleSet, or any bytes at all\n")
	var hits, corrupt atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b := body
		if corrupt.Load() > 0 {
			corrupt.Add(-1)
			b = append([]byte("X"), body[1:]...)
		}
		w.Write(b)
	}))
	defer srv.Close()
	rec := &recorder{}
	c := New(Config{Retries: 2, BaseBackoff: time.Second, Sleep: rec.sleep})
	dst := filepath.Join(t.TempDir(), "sub", "f.xml.gz")
	exp := Expect{MD5: sum(body), Size: int64(len(body))}

	tests := []struct {
		name        string
		corrupt     int32
		wantErr     error
		wantCached  bool
		wantHits    int32
		wantOnDisk  bool
		wantCorrupt int64
	}{
		// A body that never matches is rejected after every retry and
		// never lands at dst.
		{"always corrupt", 3, ErrChecksum, false, 3, false, 3},
		// A body corrupt once is fetched again.
		{"corrupt once", 1, nil, false, 2, true, 4},
		// Already on disk with the right content: no request at all.
		{"cached", 0, nil, true, 0, true, 4},
	}
	for _, tc := range tests {
		hits.Store(0)
		corrupt.Store(tc.corrupt)
		cached, err := c.File(context.Background(), srv.URL+"/f.xml.gz", dst, exp)
		if !errors.Is(err, tc.wantErr) || cached != tc.wantCached || hits.Load() != tc.wantHits {
			t.Errorf("%s: cached %v, err %v, %d requests; want %v, %v, %d", tc.name, cached, err, hits.Load(), tc.wantCached, tc.wantErr, tc.wantHits)
		}
		if _, err := os.Stat(dst); (err == nil) != tc.wantOnDisk {
			t.Errorf("%s: file on disk %v, want %v", tc.name, err == nil, tc.wantOnDisk)
		}
		if got := c.Stats().Corrupt; got != tc.wantCorrupt {
			t.Errorf("%s: %d corrupt downloads counted, want %d", tc.name, got, tc.wantCorrupt)
		}
	}
	// No temporary file is left beside dst.
	ents, _ := os.ReadDir(filepath.Dir(dst))
	if len(ents) != 1 {
		t.Errorf("files beside dst: %v", ents)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name        string
		status      []int // answers in turn, then 200
		retryAfter  string
		wantErr     error
		wantHits    int
		wantMinWait time.Duration // the first wait is at least this
	}{
		{"503 then ok", []int{503, 503}, "", nil, 3, 500 * time.Millisecond},
		{"429 with Retry-After", []int{429}, "30", nil, 2, 30 * time.Second},
		{"404 is final", []int{404}, "", ErrStatus, 1, 0},
		{"storm beyond the retries", []int{429, 429, 429, 429}, "", ErrStatus, 4, 500 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if i < len(tc.status) {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(tc.status[i])
					return
				}
				w.Write([]byte("ok"))
			}))
			defer srv.Close()
			rec := &recorder{}
			c := New(Config{Retries: 3, BaseBackoff: time.Second, MaxBackoff: time.Minute, Sleep: rec.sleep})
			b, err := c.Bytes(context.Background(), srv.URL, 10)
			if !errors.Is(err, tc.wantErr) || int(n.Load()) != tc.wantHits {
				t.Fatalf("err %v after %d requests; want %v after %d", err, n.Load(), tc.wantErr, tc.wantHits)
			}
			if err == nil && string(b) != "ok" {
				t.Errorf("body %q", b)
			}
			if tc.wantMinWait > 0 && (len(rec.waits) == 0 || rec.waits[0] < tc.wantMinWait) {
				t.Errorf("waits %v, want the first at least %s", rec.waits, tc.wantMinWait)
			}
			for i := 1; i < len(rec.waits); i++ {
				if lo := (time.Second << i) / 2; tc.retryAfter == "" && rec.waits[i] < lo {
					t.Errorf("wait %d = %s, want at least %s (exponential)", i, rec.waits[i], lo)
				}
			}
		})
	}
}

// TestPerHost: never more than PerHost requests at once to one host.
func TestPerHost(t *testing.T) {
	var in, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := in.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // let the others pile up, if they could
		in.Add(-1)
		w.Write([]byte("x"))
	}))
	defer srv.Close()
	c := New(Config{PerHost: 2})
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Bytes(context.Background(), srv.URL, 10); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Errorf("%d requests at once, want at most 2", p)
	}
}

func TestFromETag(t *testing.T) {
	tests := []struct {
		etag string
		want Expect
	}{
		{`"9b2cf535f27731c974343645a3985328"`, Expect{MD5: "9b2cf535f27731c974343645a3985328", Size: 7}},
		{`"d41d8cd98f00b204e9800998ecf8427e-38"`, Expect{Size: 7}}, // multipart: not an MD5
		{``, Expect{Size: 7}},
	}
	for _, tc := range tests {
		if got := FromETag(tc.etag, 7); got != tc.want {
			t.Errorf("FromETag(%s) = %+v, want %+v", tc.etag, got, tc.want)
		}
	}
}

// TestResume: a .part left by a killed run is continued with a range
// request; a part that is not a prefix of the file is fetched again whole.
func TestResume(t *testing.T) {
	body := []byte("0123456789abcdefghijklmnopqrstuvwxyz, a body of some length\n")
	var ranges []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
	}))
	defer srv.Close()
	tests := []struct {
		name       string
		part       []byte
		exp        Expect
		wantRanges []string
		wantBytes  int64 // received
	}{
		{"half, md5 known", body[:20], Expect{MD5: sum(body)}, []string{"bytes=20-"}, int64(len(body) - 20)},
		{"half, size known", body[:20], Expect{Size: int64(len(body))}, []string{"bytes=20-"}, int64(len(body) - 20)},
		{"complete, not renamed", body, Expect{MD5: sum(body)}, nil, 0},
		{"not a prefix", []byte("XXXXXXXXXX"), Expect{MD5: sum(body)}, []string{"bytes=10-", ""}, int64(2*len(body) - 10)},
		{"nothing to check it by", body[:20], Expect{}, []string{""}, int64(len(body))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ranges = nil
			dst := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(dst+".part", tc.part, 0o644); err != nil {
				t.Fatal(err)
			}
			c := New(Config{Retries: 2, Sleep: (&recorder{}).sleep})
			if _, err := c.File(context.Background(), srv.URL, dst, tc.exp); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(dst)
			if !bytes.Equal(got, body) {
				t.Errorf("file %q", got)
			}
			if fmt.Sprint(ranges) != fmt.Sprint(tc.wantRanges) || c.Stats().Bytes != tc.wantBytes {
				t.Errorf("ranges %q, %d bytes received; want %q, %d", ranges, c.Stats().Bytes, tc.wantRanges, tc.wantBytes)
			}
			if _, err := os.Stat(dst + ".part"); err == nil {
				t.Error(".part left behind")
			}
		})
	}
}

// TestRateLimitHeaders: Crossref's x-rate-limit-limit and
// x-rate-limit-interval space the requests to that host.
func TestRateLimitHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Rate-Limit-Limit", "50")
		w.Header().Set("X-Rate-Limit-Interval", "1s")
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	c := New(Config{})
	if _, err := c.Bytes(context.Background(), srv.URL, 10); err != nil {
		t.Fatal(err)
	}
	h := c.host(strings.TrimPrefix(srv.URL, "http://"))
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.spacing != 20*time.Millisecond {
		t.Errorf("spacing %s, want 20ms (1s / 50)", h.spacing)
	}
}

// TestResumeAfterBreak: a transfer that breaks half-way is continued by the
// next attempt from the bytes it got.
func TestResumeAfterBreak(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 1000)
	var ranges []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		first := len(ranges) == 1
		mu.Unlock()
		if first {
			// Promise the whole body, send half, hang up.
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
	}))
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "f")
	c := New(Config{Retries: 2, Sleep: (&recorder{}).sleep})
	if _, err := c.File(context.Background(), srv.URL, dst, Expect{MD5: sum(body)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, body) {
		t.Error("wrong content")
	}
	if len(ranges) != 2 || ranges[1] != fmt.Sprintf("bytes=%d-", len(body)/2) {
		t.Errorf("ranges %q, want the second request to continue at %d", ranges, len(body)/2)
	}
}
