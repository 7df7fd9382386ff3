package run

import (
	"context"
	"sync"

	"github.com/openshelf/openshelf/ingest"
)

// sequencer lets several readers run at once while the merger receives
// their records in input order, file by file, exactly as a single reader
// would deliver them. That keeps runs reproducible (the merger prefers the
// later of two equal records) and keeps deletions correct (a PubMed update
// file's DeleteCitation must come after the records of earlier files and
// before those of later ones).
//
// The reader of the oldest unfinished file (the head) writes straight to
// the merger. The others keep their records, cloned, in memory until they
// become the head, and block once they hold maxBuffer bytes; the head never
// blocks, so the run always progresses. Memory is bounded by
// workers x maxBuffer.
type sequencer struct {
	mu        sync.Mutex
	cond      *sync.Cond
	head      int // index of the oldest unfinished file
	out       ingest.Sink
	maxBuffer int
	err       error // first error from out: the run stops
	ctx       context.Context
}

func newSequencer(ctx context.Context, out ingest.Sink, maxBuffer int) *sequencer {
	s := &sequencer{out: out, maxBuffer: maxBuffer, ctx: ctx}
	s.cond = sync.NewCond(&s.mu)
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	return s
}

// event is one buffered record: a document or a deletion.
type event struct {
	doc *ingest.Document
	del ingest.Deletion
}

// fileSink is the Sink one reader writes to for file index i.
type fileSink struct {
	s        *sequencer
	i        int
	buf      []event
	size     int
	problems func(ingest.Problem)
}

func (s *sequencer) sink(i int, problems func(ingest.Problem)) *fileSink {
	return &fileSink{s: s, i: i, problems: problems}
}

// Document implements ingest.Sink.
func (f *fileSink) Document(d *ingest.Document) error {
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head == f.i {
		if err := f.flushLocked(); err != nil {
			return err
		}
		return s.deliverLocked(event{doc: d})
	}
	c, n := clone(d)
	f.buf = append(f.buf, event{doc: c})
	f.size += n
	if f.size >= s.maxBuffer {
		return f.waitHeadLocked()
	}
	return nil
}

// Delete implements ingest.Sink.
func (f *fileSink) Delete(del ingest.Deletion) error {
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head == f.i {
		if err := f.flushLocked(); err != nil {
			return err
		}
		return s.deliverLocked(event{del: del})
	}
	f.buf = append(f.buf, event{del: del})
	f.size += 64
	if f.size >= s.maxBuffer {
		return f.waitHeadLocked()
	}
	return nil
}

// Problem implements ingest.Sink; problems need no ordering.
func (f *fileSink) Problem(p ingest.Problem) { f.problems(p) }

// finish waits until file i is the head, delivers what it buffered and
// hands the head to the next file. It is called once per file, whatever
// the outcome of its reader.
func (f *fileSink) finish() error {
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	err := f.waitHeadLocked()
	if s.head == f.i {
		s.head++
		s.cond.Broadcast()
	}
	return err
}

// waitHeadLocked blocks until file i is the head (or the run stops), then
// flushes the buffer.
func (f *fileSink) waitHeadLocked() error {
	s := f.s
	for s.head != f.i && s.err == nil && s.ctx.Err() == nil {
		s.cond.Wait()
	}
	if s.err != nil {
		return s.err
	}
	if s.head != f.i {
		return s.ctx.Err()
	}
	return f.flushLocked()
}

func (f *fileSink) flushLocked() error {
	for k, e := range f.buf {
		if err := f.s.deliverLocked(e); err != nil {
			return err
		}
		f.buf[k] = event{} // let the clone go
	}
	f.buf, f.size = f.buf[:0], 0
	return nil
}

func (s *sequencer) deliverLocked(e event) error {
	if s.err != nil {
		return s.err
	}
	var err error
	if e.doc != nil {
		err = s.out.Document(e.doc)
	} else {
		err = s.out.Delete(e.del)
	}
	if err != nil {
		s.err = err
		s.cond.Broadcast()
	}
	return err
}
