package crossref

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/openshelf/openshelf/ingest/internal/limit"
	"github.com/openshelf/openshelf/ingest/internal/lines"

	"github.com/openshelf/openshelf/ingest"
)

// Source is the Document.Sources entry of every record this package reads.
const Source = "crossref"

// Read streams Crossref works from r (any of the forms listed in the
// package documentation) and reports each to sink as a Document; records it
// cannot use become Problems. origin names the input in Problems and
// Document.Origin.
//
// Read returns an error only when reading r fails, when sink returns one,
// or when ctx is done; those errors are wrapped, so errors.Is works on them.
func Read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	return read(ctx, r, origin, sink, maxLine)
}

type reader struct {
	ctx    context.Context
	origin string
	sink   ingest.Sink
	in     *lines.ErrReader
	now    time.Time
	budget *limit.Budget // stream mode: bytes per value
}

func read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink, max int) error {
	rd := &reader{ctx: ctx, origin: origin, sink: sink, in: &lines.ErrReader{R: r}, now: time.Now()}
	src, err := lines.MaybeGunzip(rd.in)
	var head []byte
	if err == nil {
		// Read the head into a slice rather than Peek a sniffSize buffer:
		// small inputs then cost only their own size.
		head, err = io.ReadAll(io.LimitReader(src, sniffSize))
	}
	if err != nil {
		err = rd.broken("", err)
	} else {
		br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(head), src), 64<<10)
		if looksLikeLines(head, len(head) < sniffSize) {
			err = rd.lines(&lines.Reader{BR: br, Max: max})
		} else {
			// Stream mode holds one value at a time, at most maxLine.
			rd.budget = &limit.Budget{R: br, Max: int64(max)}
			err = rd.stream(json.NewDecoder(rd.budget))
		}
	}
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// looksLikeLines reports whether the input is JSON Lines: its first or
// second non-blank line, within head (the first sniffSize bytes; complete
// when that is the whole input), is a complete JSON value on its own. A
// pretty-printed document fails this (its first line is "{"), and so does
// a single-line document longer than sniffSize, which stream mode handles
// without holding it in memory.
func looksLikeLines(head []byte, complete bool) bool {
	seen := 0
	for len(head) > 0 && seen < 2 {
		i := bytes.IndexByte(head, '\n')
		if i < 0 && !complete {
			return false
		}
		line := head
		if i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if json.Valid(line) {
			return true
		}
		seen++
	}
	return false
}

// lines reads one JSON value per line; a bad line is a Problem.
func (rd *reader) lines(lr *lines.Reader) error {
	for {
		if err := rd.ctx.Err(); err != nil {
			return fmt.Errorf("crossref: %s: %w", rd.origin, err)
		}
		line, num, tooLong, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		record := "line " + strconv.Itoa(num)
		if err != nil {
			return rd.broken(record, err)
		}
		if tooLong {
			rd.problem(record, fmt.Sprintf("%s: (record): line longer than %d bytes", limit.Reason, lr.Max))
			continue
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if err := rd.value(line, record, 0); err != nil {
			return err
		}
	}
}

// value handles one complete JSON value: a work, an API response or a
// list. depth counts "message" wrappers, which nest once at most.
func (rd *reader) value(b []byte, record string, depth int) error {
	b = bytes.TrimSpace(b)
	if depth == 0 {
		// Field, array and nesting caps before anything is decoded.
		if err := limit.CheckJSON(b); err != nil {
			rd.problem(record, err.Error())
			return nil
		}
	}
	if len(b) > 0 && b[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			rd.problem(record, "malformed JSON: "+err.Error())
			return nil
		}
		return rd.items(items, record)
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		rd.problem(record, "malformed work: "+err.Error())
		return nil
	}
	switch {
	case env.Message != nil && depth == 0:
		m := bytes.TrimSpace(env.Message)
		if len(m) == 0 || m[0] != '{' {
			rd.problem(record, fmt.Sprintf("API response with status %q has no work in its message: %.200s", env.Status, m))
			return nil
		}
		return rd.value(m, record, depth+1)
	case env.hasItems:
		return rd.items(env.Items, record)
	}
	return rd.emit(&env.work, record)
}

func (rd *reader) items(items []json.RawMessage, record string) error {
	for i, it := range items {
		if err := rd.ctx.Err(); err != nil {
			return fmt.Errorf("crossref: %s: %w", rd.origin, err)
		}
		rec := fmt.Sprintf("%s item %d", record, i+1)
		var w work
		if err := json.Unmarshal(it, &w); err != nil {
			rd.problem(rec, "malformed work: "+err.Error())
			continue
		}
		if err := rd.emit(&w, rec); err != nil {
			return err
		}
	}
	return nil
}

// stream reads a sequence of JSON values token by token, so that the items
// of a list response are decoded one at a time.
func (rd *reader) stream(dec *json.Decoder) error {
	for n := 1; ; n++ {
		if err := rd.ctx.Err(); err != nil {
			return fmt.Errorf("crossref: %s: %w", rd.origin, err)
		}
		record := "value " + strconv.Itoa(n)
		rd.budget.Reset()
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return rd.broken(record, err)
		}
		switch tok {
		case json.Delim('{'):
			err = rd.streamObject(dec, record, 0)
		case json.Delim('['):
			err = rd.streamItems(dec, record)
		default:
			rd.problem(record, fmt.Sprintf("not a Crossref work or response: %v", tok))
			continue
		}
		if err != nil {
			return err
		}
	}
}

// streamObject reads the rest of an object whose "{" was just consumed.
// Items of an "items" array (top level or inside "message") are streamed;
// every other member is kept and, when the object turns out to be a work,
// decoded as one.
func (rd *reader) streamObject(dec *json.Decoder, record string, depth int) error {
	var rest bytes.Buffer
	rest.WriteByte('{')
	var sawItems, sawMessage bool
	var message json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return rd.broken(record, err)
		}
		key, _ := tok.(string)
		switch {
		case key == "items" && depth <= 1:
			t, err := dec.Token()
			if err != nil {
				return rd.broken(record, err)
			}
			if t == json.Delim('[') {
				sawItems = true
				if err := rd.streamItems(dec, record); err != nil {
					return err
				}
			} else if err := skipRest(dec, t); err != nil {
				return rd.broken(record, err)
			}
		case key == "message" && depth == 0:
			t, err := dec.Token()
			if err != nil {
				return rd.broken(record, err)
			}
			sawMessage = true
			if t == json.Delim('{') {
				if err := rd.streamObject(dec, record, depth+1); err != nil {
					return err
				}
				message = nil
				continue
			}
			message = json.RawMessage(fmt.Sprint(t))
			if err := skipRest(dec, t); err != nil {
				return rd.broken(record, err)
			}
		default:
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return rd.broken(record, err)
			}
			if rest.Len() > 1 {
				rest.WriteByte(',')
			}
			k, _ := json.Marshal(key)
			rest.Write(k)
			rest.WriteByte(':')
			rest.Write(v)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing "}"
		return rd.broken(record, err)
	}
	switch {
	case sawItems:
		return nil
	case sawMessage:
		if message != nil {
			rd.problem(record, fmt.Sprintf("API response has no work in its message (%.200s)", message))
		}
		return nil
	}
	rest.WriteByte('}')
	if err := limit.CheckJSON(rest.Bytes()); err != nil {
		rd.problem(record, err.Error())
		return nil
	}
	var env envelope
	if err := json.Unmarshal(rest.Bytes(), &env); err != nil {
		rd.problem(record, "malformed work: "+err.Error())
		return nil
	}
	if env.Status != "" && env.work.DOI == "" {
		rd.problem(record, fmt.Sprintf("API response with status %q and no message", env.Status))
		return nil
	}
	return rd.emit(&env.work, record)
}

// streamItems decodes the works of an array whose "[" was just consumed.
func (rd *reader) streamItems(dec *json.Decoder, record string) error {
	for i := 1; dec.More(); i++ {
		if err := rd.ctx.Err(); err != nil {
			return fmt.Errorf("crossref: %s: %w", rd.origin, err)
		}
		rec := fmt.Sprintf("%s item %d", record, i)
		rd.budget.Reset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return rd.broken(rec, err)
		}
		if err := limit.CheckJSON(raw); err != nil {
			rd.problem(rec, err.Error())
			continue
		}
		var w work
		if err := json.Unmarshal(raw, &w); err != nil {
			// The value was read whole; only its shape was wrong.
			rd.problem(rec, "malformed work: "+err.Error())
			continue
		}
		if err := rd.emit(&w, rec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing "]"
		return rd.broken(record, err)
	}
	return nil
}

// skipRest consumes the remainder of a value whose first token was t.
func skipRest(dec *json.Decoder, t json.Token) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// emit converts w and hands it to the sink; a work without a DOI is a
// Problem.
func (rd *reader) emit(w *work, record string) error {
	doc := convert(w, rd.origin, rd.now)
	if !doc.AssignIDs() {
		rd.problem(record, fmt.Sprintf("work has no usable DOI (%.100q)", w.DOI))
		return nil
	}
	if err := rd.sink.Document(doc); err != nil {
		return fmt.Errorf("crossref: %s: %s: %w", rd.origin, doc.ID, err)
	}
	return nil
}

func (rd *reader) problem(record, reason string) {
	rd.sink.Problem(ingest.Problem{Path: rd.origin, Record: record, Reason: "crossref: " + reason})
}

// broken handles an error that ends the input: a failure of the underlying
// reader is returned; malformed JSON or compressed data is reported as a
// Problem and reading stops.
func (rd *reader) broken(record string, err error) error {
	if rd.in.Err != nil {
		return fmt.Errorf("crossref: reading %s: %w", rd.origin, rd.in.Err)
	}
	rd.problem(record, "unreadable input, stopped: "+err.Error())
	return errStop
}

// errStop ends a read after broken reported why; Read returns nil for it.
var errStop = errors.New("crossref: input ended early")
