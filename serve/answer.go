package serve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/openshelf/openshelf/serve/registry"
)

// resultCodec stores a paid *registry.Result in the payment ledger, so a
// re-send of the same payment gets exactly the same answer (status,
// headers, body) without running the handler again. Answers marked
// Cache-Control: no-store (an alarm's one-time secret), bodies larger than
// the ledger's bound, and stored objects of the snapshot (a bundle file)
// are not stored; their re-send runs the handler again, which for a bundle
// streams the same stored object.
//
// A JSON value is encoded once, here, and sent as a body: the first answer
// and every replay are the same bytes.
type resultCodec struct{}

// storedMeta is the stored form's header; the body follows it.
type storedMeta struct {
	Status      int         `json:"s,omitempty"`
	Header      http.Header `json:"h,omitempty"`
	ContentType string      `json:"ct,omitempty"`
	Encoding    string      `json:"enc,omitempty"`
}

// storedVersion starts a stored answer: version byte, uint32 length of
// the JSON meta, the meta, the body.
const storedVersion = 1

const jsonContentType = "application/json; charset=utf-8"

func (resultCodec) Encode(r *registry.Result, max int) ([]byte, *registry.Result, bool) {
	if r == nil || strings.Contains(r.Header.Get("Cache-Control"), "no-store") {
		return nil, r, false
	}
	if _, ok := r.Body.(interface{ Stat() (os.FileInfo, error) }); ok {
		return nil, r, false
	}
	out := *r
	var body []byte
	if r.Body == nil {
		v, err := json.Marshal(r.Value)
		if err != nil {
			return nil, r, false // the transport reports the encoding error
		}
		body = append(v, '\n')
		out.Value, out.ContentType, out.Encoding = nil, jsonContentType, ""
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
		body = buf
	}
	out.Body = io.NopCloser(bytes.NewReader(body))
	meta, err := json.Marshal(storedMeta{Status: out.Status, Header: out.Header, ContentType: out.ContentType, Encoding: out.Encoding})
	if err != nil {
		return nil, &out, false
	}
	b := make([]byte, 0, 5+len(meta)+len(body))
	b = append(b, storedVersion)
	b = binary.BigEndian.AppendUint32(b, uint32(len(meta)))
	b = append(append(b, meta...), body...)
	return b, &out, true
}

var errStoredAnswer = errors.New("serve: stored answer is not a result")

func (resultCodec) Decode(b []byte) (*registry.Result, error) {
	if len(b) < 5 || b[0] != storedVersion {
		return nil, errStoredAnswer
	}
	n := binary.BigEndian.Uint32(b[1:5])
	if uint64(n) > uint64(len(b)-5) {
		return nil, errStoredAnswer
	}
	var m storedMeta
	if err := json.Unmarshal(b[5:5+n], &m); err != nil {
		return nil, errStoredAnswer
	}
	return &registry.Result{Status: m.Status, Header: m.Header, ContentType: m.ContentType, Encoding: m.Encoding,
		Body: io.NopCloser(bytes.NewReader(b[5+n:]))}, nil
}
