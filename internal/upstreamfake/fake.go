// Package upstreamfake is a local stand-in for the four upstreams of the nightly
// job, for tests and the benchmark: one HTTP server speaking the real
// formats under four path prefixes.
//
//   - /pmc/ and /openalex/: public S3 buckets (GET object by key; anonymous
//     ListObjectsV2 with list-type=2, prefix, delimiter, as the real
//     endpoint answers: https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html).
//   - /pubmed/updatefiles/: an Apache-style directory listing as
//     ftp.ncbi.nlm.nih.gov serves over HTTPS, the files and their .md5.
//   - /crossref/works: the Crossref REST API, pages chosen by the test.
//
// The bodies are set by the tests, from the shared fixtures read in place
// wherever a real sample exists. Faults can be injected per path: a
// number of 429 answers, corrupt bodies, or a body that stops half-way
// and hangs (to kill a client mid-download).
package upstreamfake

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Server is the fake upstream.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	objects map[string][]byte // "/pmc/metadata/PMC1.1.json" -> body
	files   map[string]string // path -> file on disk (large corpora)
	// Crossref answers: from-index-date -> pages in order (bodies).
	crossref map[string][][]byte
	scroll   map[string]int // from-index-date -> next page of the open scroll
	hits     map[string]int
	ranges   map[string][]string // path -> Range header of each request
	inflight map[string]int
	peak     map[string]int
	// faults
	tooMany map[string]int // path -> 429 answers left
	corrupt map[string]int // path -> corrupt answers left (-1 always)
	hang    map[string]chan struct{}
	// Hung is told the path of every request that hangs half-way.
	Hung chan string
	// Headers are added to every Crossref answer (rate-limit headers).
	Headers http.Header
}

// New starts a fake upstream on loopback.
func New() *Server {
	s := &Server{objects: map[string][]byte{}, files: map[string]string{}, crossref: map[string][][]byte{}, scroll: map[string]int{}, hits: map[string]int{}, ranges: map[string][]string{},
		inflight: map[string]int{}, peak: map[string]int{}, tooMany: map[string]int{}, corrupt: map[string]int{},
		hang: map[string]chan struct{}{}, Hung: make(chan string, 16), Headers: http.Header{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Put stores an object at path ("/pmc/metadata/PMC1.1.json").
func (s *Server) Put(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[path] = body
}

// PutFile serves the file at disk under path, without holding it in memory.
func (s *Server) PutFile(path, disk string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = disk
}

// Delete removes an object.
func (s *Server) Delete(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, path)
}

// CrossrefPages sets the pages answered for a from-index-date.
func (s *Server) CrossrefPages(from string, pages ...[]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crossref[from] = pages
}

// TooMany answers the next n requests for path with 429 Too Many Requests.
func (s *Server) TooMany(path string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tooMany[path] = n
}

// Corrupt flips a byte of the next n answers for path (n < 0: always).
func (s *Server) Corrupt(path string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.corrupt[path] = n
}

// Hang makes requests for path send half of the body, then hang until
// Release (the client can then be killed mid-download).
func (s *Server) Hang(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang[path] = make(chan struct{})
}

// Release ends every hang.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, c := range s.hang {
		close(c)
		delete(s.hang, p)
	}
}

// Hits returns how many requests path received (query included for
// Crossref and listings: use HitsPrefix for those).
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// HitsPrefix sums the requests of the paths starting with prefix.
func (s *Server) HitsPrefix(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, h := range s.hits {
		if strings.HasPrefix(p, prefix) {
			n += h
		}
	}
	return n
}

// Peak returns the most requests in flight at once to a prefix
// ("/crossref/").
func (s *Server) Peak(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak[prefix]
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	top := "/" + strings.SplitN(strings.TrimPrefix(p, "/"), "/", 2)[0] + "/"
	s.mu.Lock()
	s.hits[p]++
	s.ranges[p] = append(s.ranges[p], r.Header.Get("Range"))
	s.inflight[top]++
	s.peak[top] = max(s.peak[top], s.inflight[top])
	n429 := s.tooMany[p]
	if n429 > 0 {
		s.tooMany[p]--
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight[top]--
		s.mu.Unlock()
	}()
	if n429 > 0 {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		return
	}
	switch {
	case strings.HasPrefix(p, "/crossref/"):
		s.serveCrossref(w, r)
	case (p == "/pmc/" || p == "/openalex/") && r.URL.Query().Get("list-type") == "2":
		s.serveList(w, r, p)
	case strings.HasSuffix(p, "/") && strings.HasPrefix(p, "/pubmed/"):
		s.serveDir(w, p)
	default:
		s.serveObject(w, r, p)
	}
}

func (s *Server) serveObject(w http.ResponseWriter, r *http.Request, p string) {
	s.mu.Lock()
	body, ok := s.objects[p]
	corrupt := s.corrupt[p]
	if corrupt > 0 {
		s.corrupt[p]--
	}
	hang := s.hang[p]
	disk, isFile := s.files[p]
	s.mu.Unlock()
	if isFile {
		f, err := os.Open(disk)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "", time.Time{}, f)
		return
	}
	if !ok {
		http.NotFound(w, nil)
		return
	}
	if corrupt != 0 && len(body) > 0 {
		body = slices.Clone(body)
		body[len(body)/2] ^= 0xff
	}
	w.Header().Set("ETag", `"`+MD5(body)+`"`)
	if hang != nil {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		s.Hung <- p
		<-hang
		return
	}
	// Range requests are answered as S3 does (206 with Content-Range).
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// Ranges returns the Range header of every request for path, in order
// ("" for a request of the whole object).
func (s *Server) Ranges(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ranges[path])
}

// serveList answers ListObjectsV2 for the bucket at p.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, bucket string) {
	q := r.URL.Query()
	prefix, delim := q.Get("prefix"), q.Get("delimiter")
	type content struct {
		Key  string `xml:"Key"`
		ETag string `xml:"ETag"`
		Size int    `xml:"Size"`
	}
	type cp struct {
		Prefix string `xml:"Prefix"`
	}
	var res struct {
		XMLName        xml.Name  `xml:"ListBucketResult"`
		Xmlns          string    `xml:"xmlns,attr"`
		Name           string    `xml:"Name"`
		Prefix         string    `xml:"Prefix"`
		KeyCount       int       `xml:"KeyCount"`
		MaxKeys        int       `xml:"MaxKeys"`
		IsTruncated    bool      `xml:"IsTruncated"`
		Contents       []content `xml:"Contents"`
		CommonPrefixes []cp      `xml:"CommonPrefixes"`
	}
	res.Xmlns, res.Name, res.Prefix, res.MaxKeys = "http://s3.amazonaws.com/doc/2006-03-01/", strings.Trim(bucket, "/"), prefix, 1000
	s.mu.Lock()
	seen := map[string]bool{}
	var keys []string
	for k := range s.objects {
		if key, ok := strings.CutPrefix(k, bucket); ok && strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		rest := key[len(prefix):]
		if i := strings.Index(rest, delim); delim != "" && i >= 0 {
			if cpx := prefix + rest[:i+len(delim)]; !seen[cpx] {
				seen[cpx] = true
				res.CommonPrefixes = append(res.CommonPrefixes, cp{cpx})
			}
			continue
		}
		b := s.objects[bucket+key]
		res.Contents = append(res.Contents, content{Key: key, ETag: `"` + MD5(b) + `"`, Size: len(b)})
	}
	s.mu.Unlock()
	res.KeyCount = len(res.Contents) + len(res.CommonPrefixes)
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(xml.Header))
	xml.NewEncoder(w).Encode(res)
}

// serveDir answers an Apache-style index of the objects under p.
func (s *Server) serveDir(w http.ResponseWriter, p string) {
	s.mu.Lock()
	var names []string
	for k := range s.objects {
		if rest, ok := strings.CutPrefix(k, p); ok && !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	s.mu.Unlock()
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">\n<html>\n <head>\n  <title>Index of %s</title>\n </head>\n <body>\n<h1>Index of %s</h1>\n<pre>Name                     Last modified      Size  <hr><a href=\"/pubmed/\">Parent Directory</a>                              -   \n", p, p)
	for _, n := range names {
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>     2026-11-24 14:02   1.0M  \n", n, n)
	}
	b.WriteString("<hr></pre>\n</body></html>\n")
	w.Header().Set("Content-Type", "text/html;charset=ISO-8859-1")
	w.Write([]byte(b.String()))
}

// serveCrossref answers /crossref/works?filter=...from-index-date:D...
// &cursor=C: cursor "*" opens a scroll on D's pages, and the next-cursor
// of the page just sent gives the next one (an empty page after the last).
func (s *Server) serveCrossref(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from := ""
	for _, f := range strings.Split(q.Get("filter"), ",") {
		if v, ok := strings.CutPrefix(f, "from-index-date:"); ok {
			from = v
		}
	}
	s.mu.Lock()
	pages := s.crossref[from]
	// Like the real API, the cursor names a server-side scroll whose id
	// may not change between pages: the server remembers the position.
	i := -1
	if c := q.Get("cursor"); c == "*" {
		i = 0
	} else if n := s.scroll[from]; n > 0 && n <= len(pages) && NextCursor(pages[n-1]) == c {
		i = n
	}
	if i >= 0 {
		s.scroll[from] = i + 1
	}
	s.mu.Unlock()
	for k, v := range s.Headers {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	if i < 0 {
		http.Error(w, `{"status":"failed","message-type":"validation-failure","message":[{"type":"cursor","message":"cursor expired"}]}`, http.StatusBadRequest)
		return
	}
	if i >= len(pages) {
		w.Write(EmptyPage)
		return
	}
	w.Write(pages[i])
}

// EmptyPage is the last page of a Crossref deep paging: no items. Derived
// from the shape of the real pages in
// shared/fixtures/upstreams/scholarly/crossref_works_*.json (items empty).
var EmptyPage = []byte(`{"status":"ok","message-type":"work-list","message-version":"1.0.0","message":{"facets":{},"total-results":40,"items":[],"items-per-page":20,"query":{"start-index":0,"search-terms":null}}}`)

// NextCursor returns the message.next-cursor of a Crossref page.
func NextCursor(page []byte) string {
	i := bytes.Index(page, []byte(`"next-cursor":"`))
	if i < 0 {
		return ""
	}
	rest := page[i+len(`"next-cursor":"`):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// MD5 is the hex MD5 of b (an S3 ETag of a single-part object).
func MD5(b []byte) string {
	h := md5.Sum(b)
	return hex.EncodeToString(h[:])
}

// Gzip compresses b.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
