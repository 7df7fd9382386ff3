package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/openshelf/openshelf/serve/registry"
)

// resultCodec stores a paid *registry.Result in the payment ledger, so a
// re-send of the same payment gets exactly the same answer (status,
// headers, body) without running the handler again. Answers marked
// Cache-Control: no-store (an alarm's one-time secret) and bodies larger
// than the ledger's bound are not stored; their re-send runs the handler
// again, which for a bundle streams the same stored object.
type resultCodec struct{}

// storedResult is the stored form. A JSON value is kept as its encoding,
// which the transport then sends as is, so the first answer and every
// replay are byte-identical.
type storedResult struct {
	Status      int             `json:"s,omitempty"`
	Header      http.Header     `json:"h,omitempty"`
	ContentType string          `json:"ct,omitempty"`
	Encoding    string          `json:"enc,omitempty"`
	Value       json.RawMessage `json:"v,omitempty"`
	Body        []byte          `json:"b,omitempty"`
	HasBody     bool            `json:"hb,omitempty"`
}

func (resultCodec) Encode(r *registry.Result, max int) ([]byte, *registry.Result, bool) {
	if r == nil || strings.Contains(r.Header.Get("Cache-Control"), "no-store") {
		return nil, r, false
	}
	if _, ok := r.Body.(interface{ Stat() (os.FileInfo, error) }); ok {
		// A stored object of the snapshot (a bundle): a re-send streams
		// the same object again rather than copying it into the ledger.
		return nil, r, false
	}
	st := storedResult{Status: r.Status, Header: r.Header, ContentType: r.ContentType, Encoding: r.Encoding}
	out := *r
	if r.Body == nil {
		v, err := json.Marshal(r.Value)
		if err != nil {
			return nil, r, false // the transport reports the encoding error
		}
		st.Value, out.Value = v, json.RawMessage(v)
	} else {
		buf, err := io.ReadAll(io.LimitReader(r.Body, int64(max)+1))
		if err != nil || len(buf) > max {
			// Too large (or failing): stream on without storing.
			out.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
			return nil, &out, false
		}
		r.Body.Close()
		st.Body, st.HasBody = buf, true
		out.Body = io.NopCloser(bytes.NewReader(buf))
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, &out, false
	}
	return b, &out, true
}

func (resultCodec) Decode(b []byte) (*registry.Result, error) {
	var st storedResult
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("serve: stored answer: %w", err)
	}
	r := &registry.Result{Status: st.Status, Header: st.Header, ContentType: st.ContentType, Encoding: st.Encoding}
	if st.HasBody {
		r.Body = io.NopCloser(bytes.NewReader(st.Body))
	} else {
		r.Value = st.Value
	}
	return r, nil
}
