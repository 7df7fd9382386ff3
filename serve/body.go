package serve

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/serve/registry"
)

// writeBody streams a non-JSON body. A zstd body goes out as stored when the
// client accepts zstd, and is decompressed on the fly otherwise. A file sent
// as stored gets a Content-Length, which lets net/http use sendfile.
func (s *Server) writeBody(w http.ResponseWriter, r *http.Request, status int, res *registry.Result) {
	h := w.Header()
	h.Set("Content-Type", res.ContentType)
	h.Add("Vary", "Accept-Encoding")
	var src io.Reader = res.Body
	if res.Encoding != "" {
		if acceptsEncoding(r.Header.Get("Accept-Encoding"), res.Encoding) {
			h.Set("Content-Encoding", res.Encoding)
			setFileLength(h, res.Body)
		} else {
			h.Del("Content-Length")
			dec, err := zstd.NewReader(res.Body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			defer dec.Close()
			src = dec
		}
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	buf := make([]byte, 256<<10)
	if _, err := io.CopyBuffer(w, src, buf); err != nil {
		// Headers are gone; all we can do is cut the connection short so
		// the client sees a truncated body rather than a complete one.
		s.log.Warn("body stream failed", "path", r.URL.Path, "err", err, "request_id", requestID(r.Context()))
		panic(http.ErrAbortHandler)
	}
}

// setFileLength sets Content-Length when body is a regular file: clients
// see the size, and net/http sends the file with sendfile instead of
// copying it through chunked encoding.
func setFileLength(h http.Header, body io.Reader) {
	f, ok := body.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		h.Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	}
}

// acceptsEncoding reports whether an Accept-Encoding header admits enc with
// a non-zero quality.
func acceptsEncoding(header, enc string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), enc) && strings.TrimSpace(name) != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}
