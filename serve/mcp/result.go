package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
)

// maxRenderBytes bounds the whole text of a result held in memory to cut
// it into parts.
const maxRenderBytes = 32 << 20

// maxCursorLen bounds the cursor argument (real ones are about 40 bytes).
const maxCursorLen = 200

// Page describes the part of a cut result a response carries; it is sent in
// _meta["openshelf/page"].
type Page struct {
	// Offset and Bytes locate this part in the result's text.
	Offset int `json:"offset"`
	Bytes  int `json:"bytes"`
	// TotalBytes is the length of the whole text.
	TotalBytes int `json:"total_bytes"`
	// NextCursor, passed as the cursor argument, gives the next part; it
	// is absent on the last part.
	NextCursor string `json:"next_cursor,omitempty"`
}

// part is what one tool call returns: the whole result, or one part of it.
type part struct {
	text       string
	structured json.RawMessage // the whole result, when it is a JSON object
	page       *Page           // set when the result was cut
	rights     json.RawMessage // the rights fields of a cut result, if any
	max        int
}

// errCursorStale is the error for a cursor that does not belong to the
// result computed now.
var errCursorStale = &apierr.Error{Status: 400, Code: "cursor_stale", Field: CursorArgument, Kind: apierr.ErrInvalidInput,
	Message: CursorArgument + ": the result is not the one this cursor was cut from (other arguments, or the data changed); call again without cursor"}

// render turns a handler's result into the part to send: all of it when it
// fits in max bytes and no cursor was given, else the part at the cursor.
func render(res *registry.Result, cur *cursor, max int) (*part, error) {
	text, object, err := resultText(res)
	if err != nil {
		return nil, err
	}
	return paginate(text, object, cur, max)
}

// paginate cuts a rendered text into the part at cur.
func paginate(text string, object bool, cur *cursor, max int) (*part, error) {
	total := len(text)
	if cur == nil && total <= max {
		p := &part{text: text, max: max}
		if object {
			p.structured = json.RawMessage(text)
		}
		return p, nil
	}
	sum := digest(text)
	off := 0
	if cur != nil {
		if cur.sum != sum || cur.offset >= total || !utf8.RuneStart(text[cur.offset]) {
			return nil, errCursorStale
		}
		off = cur.offset
	}
	end := off + max
	if end >= total {
		end = total
	} else {
		// Cut before a rune, never inside one: each part is valid UTF-8.
		for end > off+1 && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	pg := &Page{Offset: off, Bytes: end - off, TotalBytes: total}
	if end < total {
		pg.NextCursor = cursor{offset: end, sum: sum}.String()
	}
	return &part{text: text[off:end], page: pg, max: max, rights: rightsOf(text)}, nil
}

// rightsFields are the fields a reuser needs with any part of a work.
var rightsFields = []string{"license", "license_url", "attribution", "copyright_notice", "share_alike_notice"}

// rightsOf returns the rights fields at the top level of a JSON object
// text, as a JSON object; nil when there are none. A cut can fall anywhere,
// so each part repeats them first: no part travels without its licence.
func rightsOf(text string) json.RawMessage {
	if !strings.HasPrefix(text, "{") {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &top) != nil {
		return nil
	}
	var b bytes.Buffer
	for _, f := range rightsFields {
		v, ok := top[f]
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteByte('}')
	return b.Bytes()
}

// result is the CallToolResult of a part.
func (p *part) result(tool string) *sdk.CallToolResult {
	r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: p.text}}}
	if p.structured != nil {
		r.StructuredContent = p.structured
	}
	if pg := p.page; pg != nil {
		last := pg.Offset + pg.Bytes - 1
		var marker string
		if pg.NextCursor != "" {
			marker = fmt.Sprintf("[openshelf: result cut at the %d-byte limit: this part is bytes %d-%d of %d. "+
				"For the next part call %s again with the same arguments plus \"cursor\": %q "+
				"(for a paid tool, with the same _meta[\"x402/payment\"]: it is not charged again).]",
				p.max, pg.Offset, last, pg.TotalBytes, tool, pg.NextCursor)
		} else {
			marker = fmt.Sprintf("[openshelf: last part of a cut result: bytes %d-%d of %d.]", pg.Offset, last, pg.TotalBytes)
		}
		r.Content = append(r.Content, &sdk.TextContent{Text: marker})
		r.Meta = sdk.Meta{MetaPage: pg}
		if p.rights != nil {
			// The rights come first, before the slice of text.
			r.Content = append([]sdk.Content{&sdk.TextContent{Text: string(p.rights)}}, r.Content...)
			r.Meta[MetaRights] = p.rights
		}
	}
	return r
}

// resultText returns a result as text: a value as compact JSON, a textual
// body as is (zstd decoded). object reports a JSON object, which is also
// sent as structuredContent.
func resultText(res *registry.Result) (text string, object bool, err error) {
	defer res.Close()
	if res.Body == nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // keep <, > and & readable in titles and abstracts
		if err := enc.Encode(res.Value); err != nil {
			return "", false, fmt.Errorf("mcp: encode result: %w", err)
		}
		b := bytes.TrimRight(buf.Bytes(), "\n")
		if len(b) > maxRenderBytes {
			return "", false, errTooLarge
		}
		return string(b), len(b) > 0 && b[0] == '{', nil
	}
	mt, _, _ := mime.ParseMediaType(res.ContentType)
	jsonBody := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if !jsonBody && !strings.HasPrefix(mt, "text/") && mt != "application/x-ndjson" {
		return "", false, apierr.New(apierr.ErrInternal, "result_not_text",
			"this tool's result ("+res.ContentType+") cannot be sent over MCP; use the HTTP endpoint")
	}
	var r io.Reader = res.Body
	switch res.Encoding {
	case "":
	case "zstd":
		dec, err := zstd.NewReader(res.Body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return "", false, fmt.Errorf("mcp: zstd result: %w", err)
		}
		defer dec.Close()
		r = dec
	default:
		return "", false, fmt.Errorf("mcp: result has unsupported encoding %q", res.Encoding)
	}
	b, err := io.ReadAll(io.LimitReader(r, maxRenderBytes+1))
	if err != nil {
		return "", false, fmt.Errorf("mcp: read result: %w", err)
	}
	if len(b) > maxRenderBytes {
		return "", false, errTooLarge
	}
	if !utf8.Valid(b) {
		return "", false, fmt.Errorf("mcp: %s result is not valid UTF-8", res.ContentType)
	}
	if jsonBody {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			b = c.Bytes()
			return string(b), len(b) > 0 && b[0] == '{', nil
		}
	}
	return string(b), false, nil
}

var errTooLarge = apierr.New(apierr.ErrInternal, "result_too_large",
	fmt.Sprintf("the result is over %d MiB, too large for MCP; use the HTTP endpoint", maxRenderBytes>>20))

// cursor points into a cut result: the offset of the next part and a
// digest of the whole text, so that it cannot be applied to another one.
type cursor struct {
	offset int
	sum    string // 16 hex digits
}

func digest(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:8])
}

// String is the opaque form sent to clients.
func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1:" + strconv.Itoa(c.offset) + ":" + c.sum))
}

// parseCursor reads a cursor argument; the error names the field.
func parseCursor(s string) (*cursor, error) {
	bad := apierr.Invalid(CursorArgument, "is not a cursor this server gave out; call without it to start from the beginning")
	if len(s) > maxCursorLen {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, bad
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 || parts[0] != "v1" || len(parts[2]) != 16 || !digitsOnly(parts[1]) || len(parts[1]) > 10 || parts[1][0] == '0' {
		return nil, bad
	}
	if _, err := hex.DecodeString(parts[2]); err != nil || strings.ToLower(parts[2]) != parts[2] {
		return nil, bad
	}
	off, err := strconv.Atoi(parts[1])
	if err != nil || off <= 0 {
		return nil, bad
	}
	return &cursor{offset: off, sum: parts[2]}, nil
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// textResult is a rendered text as a result that renders to the same text.
func textResult(text string, object bool) *registry.Result {
	ct := "text/plain; charset=utf-8"
	if object {
		ct = "application/json"
	}
	return &registry.Result{Body: io.NopCloser(strings.NewReader(text)), ContentType: ct}
}

// textCodec stores a paid tool's rendered text in the payment ledger: a
// re-send of the same payment (for the next part of a cut result, say) is
// served from it without running the tool again.
type textCodec struct{}

func (textCodec) Encode(r *registry.Result, max int) ([]byte, *registry.Result, bool) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, r, false
	}
	object := r.ContentType == "application/json"
	out := textResult(string(b), object)
	if len(b)+1 > max {
		return nil, out, false
	}
	flag := byte('t')
	if object {
		flag = 'o'
	}
	return append([]byte{flag}, b...), out, true
}

func (textCodec) Decode(b []byte) (*registry.Result, error) {
	if len(b) == 0 || (b[0] != 't' && b[0] != 'o') {
		return nil, fmt.Errorf("mcp: stored answer is not a tool result")
	}
	return textResult(string(b[1:]), b[0] == 'o'), nil
}
