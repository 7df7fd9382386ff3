package jats

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

var (
	// ErrNotXML means the input does not start like an XML document.
	ErrNotXML = errors.New("jats: input is not XML")
	// ErrNotJATS means the input is XML but holds no <article> element.
	ErrNotJATS = errors.New("jats: no JATS <article> element")
	// ErrSyntax means the XML is broken beyond what the lenient scanner
	// repairs: an unterminated tag, comment or declaration, or input that
	// ends inside an element.
	ErrSyntax = errors.New("jats: malformed XML")
	// ErrLimit means the input exceeds a Reader limit (nesting depth, size
	// of one tag or captured element).
	ErrLimit = errors.New("jats: input exceeds a limit")
	// ErrEncoding means the XML declares a character encoding the reader
	// cannot decode.
	ErrEncoding = errors.New("jats: unsupported character encoding")
	// ErrOAI means an OAI-PMH response carried an error other than
	// noRecordsMatch.
	ErrOAI = errors.New("jats: OAI-PMH error response")
)

// errCaptureLimit is an ErrLimit confined to one article: the article is
// reported as a Problem and reading goes on with the next one.
var errCaptureLimit = fmt.Errorf("%w", ErrLimit)

// Reader reads JATS. The zero value is ready to use with the default
// limits; a Reader is safe for concurrent use as long as its fields are not
// changed.
type Reader struct {
	// Now is the time licences are judged at (an ali:license_ref start date
	// in the future is an embargo). Nil means time.Now.
	Now func() time.Time
	// MaxDepth bounds element nesting; 0 means 256 (the 55 fixture articles
	// nest at most 17 deep).
	MaxDepth int
	// MaxTokenBytes bounds one tag, comment, CDATA section or declaration;
	// 0 means 16 MiB.
	MaxTokenBytes int
	// MaxCaptureBytes bounds the text held for one front matter, paragraph
	// or reference; 0 means 32 MiB. An article that exceeds it is reported
	// as a Problem and skipped.
	MaxCaptureBytes int

	// decide replaces licence.Decide in tests that inspect the evidence.
	decide func([]licence.Evidence, time.Time) licence.Decision
}

// Read streams r (one article, a <pmc-articleset>, or an OAI-PMH GetRecord
// or ListRecords response) into sink, with the default Reader.
func Read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	var rd Reader
	return rd.Read(ctx, r, origin, sink)
}

// ReadTarGz reads a gzip-compressed tar package with the default Reader.
func ReadTarGz(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	var rd Reader
	return rd.ReadTarGz(ctx, r, origin, sink)
}

// ReadTar reads an uncompressed tar package with the default Reader.
func ReadTar(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	var rd Reader
	return rd.ReadTar(ctx, r, origin, sink)
}

// Read streams r into sink: every <article> outside another article
// becomes a Document (or a Problem when it has no usable identifier), and
// every deleted OAI-PMH record a Deletion.
//
// It returns an error when the input as a whole cannot be read: not XML
// (ErrNotXML), no article (ErrNotJATS), broken XML (ErrSyntax), a limit
// (ErrLimit), an OAI-PMH error (ErrOAI), a read error, cancellation, or an
// error returned by the sink, which stops reading. Documents sent before
// the error stand.
func (rd *Reader) Read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	err := rd.read(ctx, r, origin, sink)
	var se *sinkError
	if errors.As(err, &se) {
		return se.err
	}
	return err
}

func (rd *Reader) read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	p := rd.getParser(ctx, r, origin, sink)
	defer putParser(p)
	if err := p.run(); err != nil {
		var se *sinkError
		if errors.As(err, &se) {
			return err
		}
		return fmt.Errorf("%s: %w", origin, err)
	}
	return nil
}

// ReadTarGz reads a gzip-compressed tar archive (a PMC OA article package)
// and reads every .xml and .nxml member with Read, named "origin!member".
// A member whose content cannot be read is reported as a Problem and the
// archive goes on; cancellation, sink errors and a damaged archive stop it.
func (rd *Reader) ReadTarGz(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%s: %w", origin, err)
	}
	defer zr.Close()
	return rd.ReadTar(ctx, zr, origin, sink)
}

// ReadTar is ReadTarGz for an archive that is already decompressed.
func (rd *Reader) ReadTar(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	tr := tar.NewReader(r)
	members := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: reading tar: %w", origin, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		switch strings.ToLower(path.Ext(h.Name)) {
		case ".xml", ".nxml":
		default:
			continue
		}
		members++
		name := origin + "!" + h.Name
		err = rd.read(ctx, tr, name, sink)
		if err == nil {
			continue
		}
		var se *sinkError
		if errors.As(err, &se) {
			return se.err
		}
		if !isContentError(err) {
			// Cancellation, or the archive itself is damaged.
			return err
		}
		sink.Problem(ingest.Problem{Path: name, Reason: strings.TrimPrefix(err.Error(), name+": ")})
	}
	if members == 0 {
		return fmt.Errorf("%s: %w: the archive has no .xml or .nxml member", origin, ErrNotJATS)
	}
	return nil
}

// isContentError reports whether err is about what a file holds rather
// than about reading it.
func isContentError(err error) bool {
	for _, e := range []error{ErrNotXML, ErrNotJATS, ErrSyntax, ErrLimit, ErrEncoding, ErrOAI} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// sinkError carries an error returned by the sink through the parser.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// preview is the start of b, for an error message.
func preview(b []byte) string {
	if len(b) > 16 {
		b = b[:16]
	}
	return string(b)
}

// declaredEncoding returns the encoding pseudo-attribute of an XML
// declaration at the start of b.
func declaredEncoding(b []byte) string {
	if !bytes.HasPrefix(b, []byte("<?xml")) {
		return ""
	}
	end := bytes.Index(b, []byte("?>"))
	if end < 0 {
		return ""
	}
	decl := b[:end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
		return ""
	}
	j := bytes.IndexByte(rest[1:], rest[0])
	if j < 0 {
		return ""
	}
	return string(rest[1 : 1+j])
}
