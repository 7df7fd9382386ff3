package browser

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
)

// store keeps render_document files under an unguessable token until they
// expire. Each render is two files in dir: TOKEN.bin (the document) and
// TOKEN.json (its metadata, written last, so a render without it is not
// served and is swept once old).
type store struct {
	dir string
	ttl time.Duration
	now func() time.Time
	log *slog.Logger
}

// renderMeta is TOKEN.json.
type renderMeta struct {
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	Size        int       `json:"size"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires"`
}

// tokenRE: 32 random bytes, base64url without padding.
var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// errRenderGone: no render under the token, or it expired (404).
var errRenderGone = apierr.NotFound("render_not_found", "no such render, or its 24-hour link has expired")

func newStore(dir string, ttl time.Duration, now func() time.Time, log *slog.Logger) *store {
	return &store{dir: dir, ttl: ttl, now: now, log: log}
}

func (s *store) put(data []byte, filename, contentType string) (token string, m renderMeta, err error) {
	if s.dir == "" {
		return "", m, errors.New("browser: no render directory configured")
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", m, err
	}
	var raw [32]byte
	rand.Read(raw[:])
	token = base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.now().UTC()
	m = renderMeta{Filename: filename, ContentType: contentType, Size: len(data), Created: now, Expires: now.Add(s.ttl)}
	if err := writeAtomic(filepath.Join(s.dir, token+".bin"), data); err != nil {
		return "", m, err
	}
	mb, _ := json.Marshal(m)
	if err := writeAtomic(filepath.Join(s.dir, token+".json"), mb); err != nil {
		os.Remove(filepath.Join(s.dir, token+".bin"))
		return "", m, err
	}
	return token, m, nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// open returns the metadata and the file of a live render.
func (s *store) open(token string) (renderMeta, *os.File, error) {
	var m renderMeta
	if !tokenRE.MatchString(token) || s.dir == "" {
		return m, nil, errRenderGone
	}
	b, err := os.ReadFile(filepath.Join(s.dir, token+".json"))
	if err != nil {
		return m, nil, errRenderGone
	}
	if err := json.Unmarshal(b, &m); err != nil || !s.now().Before(m.Expires) {
		return m, nil, errRenderGone
	}
	f, err := os.Open(filepath.Join(s.dir, token+".bin"))
	if err != nil {
		return m, nil, errRenderGone
	}
	return m, f, nil
}

// sweep deletes expired renders and leftovers (a .bin or .tmp without
// metadata) older than the lifetime. It returns how many renders it removed.
func (s *store) sweep() int {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	now := s.now()
	removed := 0
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(s.dir, name)
		switch {
		case strings.HasSuffix(name, ".json"):
			var m renderMeta
			b, err := os.ReadFile(path)
			if err == nil && json.Unmarshal(b, &m) == nil && now.Before(m.Expires) {
				continue
			}
			token := strings.TrimSuffix(name, ".json")
			os.Remove(filepath.Join(s.dir, token+".bin"))
			os.Remove(path)
			removed++
		case strings.HasSuffix(name, ".bin") || strings.HasSuffix(name, ".tmp"):
			if _, err := os.Stat(filepath.Join(s.dir, strings.TrimSuffix(strings.TrimSuffix(name, ".tmp"), ".bin")+".json")); err == nil {
				continue
			}
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > s.ttl {
				os.Remove(path)
			}
		}
	}
	if removed > 0 {
		s.log.Info("browser: swept expired renders", "removed", removed)
	}
	return removed
}

func (s *store) sweepEvery(ctx context.Context, every time.Duration) {
	s.sweep()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sweep()
		}
	}
}

// ServeHTTP is the free download route GET /v1/render-doc/{token}: the
// token is the only credential, so the answer is private and not cached by
// shared caches. An HTML render is sent as an attachment with a CSP that
// blocks scripts and loads, so it cannot act on this origin.
func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	m, f, err := s.open(token)
	if err != nil {
		writeAPIError(w, errRenderGone)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", m.ContentType)
	h.Set("Content-Disposition", `attachment; filename="`+asciiName(m.Filename)+`"; filename*=UTF-8''`+url.PathEscape(m.Filename))
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox")
	h.Set("Expires", m.Expires.Format(http.TimeFormat))
	if r.Method == http.MethodHead {
		return
	}
	http.ServeContent(w, r, "", m.Created, f)
}

func writeAPIError(w http.ResponseWriter, e *apierr.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	json.NewEncoder(w).Encode(e.Envelope())
}

// asciiName is the filename for the plain filename= parameter.
func asciiName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, s)
}
