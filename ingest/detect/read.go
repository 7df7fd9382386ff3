package detect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/openshelf/openshelf/ingest"
)

// ReaderFunc is the shape of every source reader: it streams r, named
// origin in documents and problems, into sink.
type ReaderFunc func(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error

// Readers maps each format to its reader. The readers always receive the
// decompressed stream; a JATSPackage reader receives the tar stream.
type Readers map[Format]ReaderFunc

// Read detects the format of the file at path and reads it with the
// default readers. See [Readers.ReadFile].
func Read(ctx context.Context, path string, sink ingest.Sink) error {
	_, err := Default().ReadFile(ctx, path, sink)
	return err
}

// Read is ReadFile without the Info.
func (rs Readers) Read(ctx context.Context, path string, sink ingest.Sink) error {
	_, err := rs.ReadFile(ctx, path, sink)
	return err
}

// ReadFile opens path, detects its format and hands it to the matching
// reader, with path as the origin. It returns what was detected and:
//   - a [*SkipError] when the file is not data (errors.Is(err, ErrSkipped));
//   - an error wrapping ErrCorrupt when its compression is damaged;
//   - a [*SkipError] wrapping ErrNoReader when no reader is registered for
//     the format;
//   - otherwise the reader's own error (records it could not read are
//     reported to sink.Problem and are not errors).
func (rs Readers) ReadFile(ctx context.Context, path string, sink ingest.Sink) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	return rs.ReadFrom(ctx, f, path, sink)
}

// ReadFrom is ReadFile on an open stream.
func (rs Readers) ReadFrom(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) (Info, error) {
	info, stream, err := Sniff(r)
	if err != nil {
		return info, fmt.Errorf("%s: %w", origin, err)
	}
	defer stream.Close()
	if info.Format == "" {
		return info, &SkipError{Path: origin, Reason: info.Reason}
	}
	read := rs[info.Format]
	if read == nil {
		return info, &SkipError{Path: origin, Reason: "detected " + info.String() + ", but no reader for it is enabled", Err: ErrNoReader}
	}
	var in io.Reader = stream
	if info.Format == OpenAlex && info.Variant != VariantJSONLines {
		l := toLines(ctx, stream, info.Variant)
		defer l.Close()
		in = l
	}
	if err := read(ctx, in, origin, sink); err != nil {
		return info, err
	}
	return info, nil
}

// errStop tells the JSON Lines converter that its consumer went away.
var errStop = errors.New("detect: reader stopped")
