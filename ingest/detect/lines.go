package detect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The OpenAlex reader reads snapshot files: one work per line. An API page
// ({"meta":..., "results":[...]}), a JSON array of works or a
// pretty-printed work is converted into that form on the fly, one work in
// memory at a time, so every OpenAlex shape Sniff recognises can be read.

// lineStream is the converted stream. Close stops the converter and waits
// for it, so the source is not read after the caller closes it.
type lineStream struct {
	*io.PipeReader
	done chan struct{}
}

func (l *lineStream) Close() error {
	l.PipeReader.CloseWithError(errStop)
	<-l.done
	return nil
}

// toLines converts r, of the given variant, into JSON Lines.
func toLines(ctx context.Context, r io.Reader, variant string) *lineStream {
	pr, pw := io.Pipe()
	l := &lineStream{PipeReader: pr, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		pw.CloseWithError(convertLines(ctx, json.NewDecoder(r), pw, variant))
	}()
	return l
}

func convertLines(ctx context.Context, dec *json.Decoder, w io.Writer, variant string) error {
	var buf bytes.Buffer
	one := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		buf.Reset()
		// Compact output has no raw newline: JSON escapes them in strings.
		if err := json.Compact(&buf, raw); err != nil {
			return err
		}
		buf.WriteByte('\n')
		_, err := w.Write(buf.Bytes())
		return err
	}
	array := func() error {
		if err := expectDelim(dec, '['); err != nil {
			return err
		}
		for dec.More() {
			if err := one(); err != nil {
				return err
			}
		}
		return expectDelim(dec, ']')
	}
	switch variant {
	case VariantArray:
		return array()
	case VariantAPIPage:
		if err := expectDelim(dec, '{'); err != nil {
			return err
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			if key == "results" {
				if err := array(); err != nil {
					return err
				}
				continue
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
		return expectDelim(dec, '}')
	default: // one or more objects, pretty-printed
		for {
			err := one()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("detect: expected %q in JSON, found %v", want, tok)
	}
	return nil
}
