package detect

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest/internal/limit"
)

// Format names the reader a stream belongs to. The zero value means the
// stream is not data this project reads.
type Format string

const (
	// JATS is a single JATS (or NLM 2.x/3.x) <article>, or a
	// <pmc-articleset> of them.
	JATS Format = "jats"
	// JATSPackage is a tar archive (normally gzip-compressed) holding one
	// article's .nxml/.xml plus its figures and supplements, as in the PMC
	// Open Access packages.
	JATSPackage Format = "jats-package"
	// OAIPMH is an OAI-PMH response (PMC's OAI service) wrapping JATS
	// records in <metadata>.
	OAIPMH Format = "oai-pmh"
	// PubMed is a <PubmedArticleSet> (baseline and update files, efetch) or
	// a bare <PubmedArticle> fragment.
	PubMed Format = "pubmed"
	// Crossref is Crossref works JSON: a REST API envelope, a single work,
	// an {"items": [...]} list, JSON Lines, or a MongoDB export of those.
	Crossref Format = "crossref"
	// OpenAlex is OpenAlex works JSON: snapshot JSON Lines, a single work or
	// an API page {"meta":..., "results": [...]}.
	OpenAlex Format = "openalex"
)

// Variants say which form of a format a stream has. They do not change the
// reader, except that [VariantMongo] is unwrapped to plain JSON Lines first.
const (
	VariantArticle     = "article"        // JATS: root <article>
	VariantArticleSet  = "pmc-articleset" // JATS: root <pmc-articleset>
	VariantTar         = "tar"            // JATS package
	VariantSet         = "set"            // PubMed: root <PubmedArticleSet>
	VariantFragment    = "fragment"       // PubMed: root <PubmedArticle> or <PubmedBookArticle>
	VariantJSONLines   = "jsonl"          // one JSON object per line
	VariantJSON        = "json"           // one (pretty-printed) JSON object
	VariantArray       = "array"          // a top-level JSON array of works
	VariantEnvelope    = "api-envelope"   // Crossref {"status","message-type","message"}
	VariantList        = "list"           // Crossref {"items": [...]}
	VariantAPIPage     = "api-page"       // OpenAlex {"meta", "results": [...]}
	VariantMongo       = "mongo-export"   // MongoDB extended JSON ({"$oid"}, {"$numberLong"})
	VariantOAIResponse = "oai-pmh"
)

// Compression schemes recognised by their magic numbers.
const (
	Gzip = "gzip"
	Zstd = "zstd"
)

// SniffSize is how many (decompressed) bytes Sniff looks at. 64 KiB holds
// the root element of any XML file and the first keys of a JSON work.
const SniffSize = 64 << 10

// Info is what Sniff found out about a stream.
type Info struct {
	Format      Format `json:"format,omitempty"`      // "" when not data
	Variant     string `json:"variant,omitempty"`     // see the Variant constants
	Compression string `json:"compression,omitempty"` // "", Gzip or Zstd
	// Reason says, for a stream that is not data, what it looks like
	// instead ("image/png", "text (not XML or JSON)", "XML root <html>...").
	Reason string `json:"reason,omitempty"`
}

// String renders the info for logs: "crossref/jsonl+gzip", or the reason.
func (i Info) String() string {
	if i.Format == "" {
		return "not data: " + i.Reason
	}
	s := string(i.Format)
	if i.Variant != "" {
		s += "/" + i.Variant
	}
	if i.Compression != "" {
		s += "+" + i.Compression
	}
	return s
}

var (
	// ErrSkipped marks a file that is not data; see [SkipError].
	ErrSkipped = errors.New("not a data file")
	// ErrCorrupt marks a file whose container (gzip, zstd) is damaged.
	ErrCorrupt = errors.New("corrupt compressed stream")
	// ErrNoReader means the format was recognised but no reader is
	// registered for it; it comes inside a SkipError.
	ErrNoReader = errors.New("no reader for format")
)

// SkipError reports a file that was skipped: it is not data, or no reader
// is enabled for its format (then Err is ErrNoReader). It matches
// ErrSkipped with errors.Is.
type SkipError struct {
	Path   string
	Reason string
	Err    error // the cause, when there is one
}

func (e *SkipError) Error() string { return e.Path + ": skipped: " + e.Reason }

// Is makes errors.Is(err, ErrSkipped) true.
func (e *SkipError) Is(target error) bool { return target == ErrSkipped }

// Unwrap returns the cause.
func (e *SkipError) Unwrap() error { return e.Err }

var (
	magicGzip = []byte{0x1f, 0x8b}
	magicZstd = []byte{0x28, 0xb5, 0x2f, 0xfd}
	utf8BOM   = []byte{0xef, 0xbb, 0xbf}
)

// Detect classifies a prefix of a stream held in memory. It is Sniff
// without the stream, for tests and quick checks; it never fails.
func Detect(prefix []byte) Info {
	info, rc, err := Sniff(bytes.NewReader(prefix))
	if rc != nil {
		rc.Close()
	}
	if err != nil {
		return Info{Compression: info.Compression, Reason: err.Error()}
	}
	return info
}

// sniffBufs holds the buffered readers Sniff peeks through, SniffSize
// bytes each: a build sniffs every file it reads, and a buffer allocated
// (and zeroed) for each was a gigabyte of garbage per 20 000 articles.
var sniffBufs = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, SniffSize) }}

func newSniffBuf(r io.Reader) *bufio.Reader {
	br := sniffBufs.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func freeSniffBuf(br *bufio.Reader) {
	br.Reset(nil) // drop the stream it read
	sniffBufs.Put(br)
}

// Sniff reads the start of r and classifies it. It returns the content as a
// stream that starts at byte 0, already decompressed when r was gzip or
// zstd; Close releases the decompressor and the stream's buffers (it does
// not close r), so the stream must not be read after it. The error is an
// I/O error from r, or ErrCorrupt when a compressed stream cannot be
// opened; an unrecognised stream is not an error (Info.Format is "").
func Sniff(r io.Reader) (Info, io.ReadCloser, error) {
	in := &limit.Counter{R: r}
	br := newSniffBuf(in)
	ok := false // the stream is handed out: its Close frees the buffers
	defer func() {
		if !ok {
			freeSniffBuf(br)
		}
	}()
	// Decompression is bounded in ratio and size (limit.Expansion): a
	// bomb fails the file with limit.ErrBomb instead of filling memory or
	// disk downstream.
	bounded := func(r io.Reader) io.Reader { return &limit.Expansion{R: r, In: func() int64 { return in.N }} }
	head, err := br.Peek(len(magicZstd))
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return Info{}, nil, err
	}
	var (
		info   Info
		stream io.Reader = br
		closer func()
	)
	switch {
	case bytes.HasPrefix(head, magicGzip):
		info.Compression = Gzip
		gz, err := gzip.NewReader(br)
		if err != nil {
			return info, nil, fmt.Errorf("%w: gzip: %v", ErrCorrupt, err)
		}
		// gzip.Reader reads several concatenated members (pigz, bgzip)
		// as one stream by default, which is what we want.
		stream = bounded(gz)
	case bytes.HasPrefix(head, magicZstd):
		info.Compression = Zstd
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return info, nil, fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
		}
		stream, closer = bounded(zr), zr.Close
	}
	inner := br
	if stream != io.Reader(br) {
		inner = newSniffBuf(stream)
		defer func() {
			if !ok {
				freeSniffBuf(inner)
			}
		}()
	}
	prefix, err := inner.Peek(SniffSize)
	switch {
	case err == nil || err == io.EOF || errors.Is(err, bufio.ErrBufferFull):
	case info.Compression != "" && len(prefix) > 0:
		// A truncated or damaged compressed stream that still yielded
		// some bytes: classify them and let the reader meet the damage
		// (it reports a problem with the record position).
	case info.Compression != "":
		if closer != nil {
			closer()
		}
		return info, nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, info.Compression, err)
	default:
		return info, nil, err
	}
	plain := classify(prefix)
	plain.Compression = info.Compression
	if plain.Format == "" && isCompressed(prefix) && info.Compression != "" {
		plain.Reason = "compressed twice (" + info.Compression + " inside " + info.Compression + " or zstd) is not supported"
	}
	ok = true
	return plain, &readCloser{Reader: inner, bufs: [2]*bufio.Reader{br, inner}, close: closer}, nil
}

func isCompressed(b []byte) bool {
	return bytes.HasPrefix(b, magicGzip) || bytes.HasPrefix(b, magicZstd)
}

type readCloser struct {
	io.Reader
	bufs  [2]*bufio.Reader // the buffers to free: the input's, the decompressed stream's (or the input's again)
	close func()
}

func (rc *readCloser) Close() error {
	if rc.close != nil {
		rc.close()
		rc.close = nil
	}
	if rc.bufs[0] != nil {
		freeSniffBuf(rc.bufs[0])
		if rc.bufs[1] != rc.bufs[0] {
			freeSniffBuf(rc.bufs[1])
		}
		rc.bufs = [2]*bufio.Reader{}
		rc.Reader = eofReader{}
	}
	return nil
}

// eofReader is a closed stream: reading it after Close finds nothing
// rather than another file's bytes.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// classify looks at uncompressed bytes.
func classify(b []byte) Info {
	if isTar(b) {
		return Info{Format: JATSPackage, Variant: VariantTar}
	}
	if what := binaryKind(b); what != "" {
		return Info{Reason: what}
	}
	t := bytes.TrimPrefix(b, utf8BOM)
	t = bytes.TrimLeft(t, " \t\r\n")
	if len(t) == 0 {
		if len(b) == 0 {
			return Info{Reason: "empty file"}
		}
		return Info{Reason: "only white space"}
	}
	switch t[0] {
	case '<':
		return classifyXML(t)
	case '{', '[':
		return classifyJSON(t)
	}
	if isText(t) {
		return Info{Reason: "text (not XML or JSON)" + textHint(t)}
	}
	return Info{Reason: "binary data of unknown type"}
}

// isTar reports a POSIX or GNU tar header: "ustar" at offset 257.
func isTar(b []byte) bool {
	return len(b) >= 262 && string(b[257:262]) == "ustar"
}

// binaryKind names common non-data files by their magic numbers.
func binaryKind(b []byte) string {
	for _, m := range []struct {
		magic string
		what  string
	}{
		{"\x89PNG\r\n\x1a\n", "image/png"},
		{"\xff\xd8\xff", "image/jpeg"},
		{"GIF87a", "image/gif"},
		{"GIF89a", "image/gif"},
		{"II*\x00", "image/tiff"},
		{"MM\x00*", "image/tiff"},
		{"%PDF-", "application/pdf"},
		{"PK\x03\x04", "zip archive (MECA and other zip packages are not supported)"},
		{"PK\x05\x06", "zip archive (empty)"},
		{"BZh", "bzip2 (not supported; use gzip or zstd)"},
		{"\xfd7zXZ\x00", "xz (not supported; use gzip or zstd)"},
		{"PAR1", "Parquet (a snapshot output, not an input)"},
		{"\x7fELF", "executable"},
	} {
		if bytes.HasPrefix(b, []byte(m.magic)) {
			return m.what
		}
	}
	if bytes.HasPrefix(b, []byte("RIFF")) && len(b) >= 12 && string(b[8:12]) == "WEBP" {
		return "image/webp"
	}
	return ""
}

// isText reports whether b looks like text: valid UTF-8 (allowing a rune
// cut at the end of the prefix) without NUL or most control characters.
func isText(b []byte) bool {
	if len(b) > 4096 {
		b = b[:4096]
	}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			if len(b) < utf8.UTFMax && !utf8.FullRune(b) {
				return true
			}
			return false
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' {
			return false
		}
		b = b[n:]
	}
	return true
}

// textHint adds what kind of text it seems to be, for the skip report.
func textHint(t []byte) string {
	first, _, _ := bytes.Cut(t, []byte("\n"))
	switch {
	case bytes.HasPrefix(first, []byte("#")) || bytes.HasPrefix(first, []byte("---")):
		return ": looks like Markdown"
	case bytes.Count(first, []byte(",")) >= 2:
		return ": looks like CSV"
	case bytes.Count(first, []byte("\t")) >= 2:
		return ": looks like TSV"
	}
	return ""
}
