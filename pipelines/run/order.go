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
// become the head. A reader that finishes its file before its turn parks
// its records in the sequencer and goes on with the next file, so a large
// file does not hold the other readers up; when the head finishes, the
// parked files that follow it are delivered at once. A reader blocks only
// when its file's records reach maxBuffer bytes, or when it finishes while
// the parked and buffered records exceed limit; the head never blocks, so
// the run always progresses. Memory is bounded by about limit + workers x
// maxBuffer.
type sequencer struct {
	mu        sync.Mutex
	cond      *sync.Cond
	head      int // index of the oldest unfinished file
	out       ingest.Sink
	maxBuffer int
	limit     int               // bytes of buffered records beyond which finishing readers wait
	buffered  int               // bytes held by every fileSink that is not the head
	parked    map[int]*fileSink // finished files waiting for their turn
	err       error             // first error from out: the run stops
	ctx       context.Context
}

func newSequencer(ctx context.Context, out ingest.Sink, maxBuffer int) *sequencer {
	s := &sequencer{out: out, maxBuffer: maxBuffer, limit: 2 * maxBuffer, parked: map[int]*fileSink{}, ctx: ctx}
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
	s.buffered += n
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
	s.buffered += 64
	if f.size >= s.maxBuffer {
		return f.waitHeadLocked()
	}
	return nil
}

// Problem implements ingest.Sink; problems need no ordering.
func (f *fileSink) Problem(p ingest.Problem) { f.problems(p) }

// finish is called once per file, whatever the outcome of its reader. The
// head delivers what it buffered and hands over to the next file (and
// delivers the parked files that follow); another file parks its records
// and returns at once, unless the sequencer already holds more than limit
// bytes: then it waits for its turn or for room.
func (f *fileSink) finish() error {
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.head != f.i && s.buffered > s.limit && s.err == nil && s.ctx.Err() == nil {
		s.cond.Wait()
	}
	switch {
	case s.err != nil:
		return s.err
	case s.head != f.i && s.ctx.Err() != nil:
		return s.ctx.Err()
	case s.head != f.i:
		s.parked[f.i] = f
		return nil
	}
	if err := f.flushLocked(); err != nil {
		return err
	}
	s.head++
	for {
		p, ok := s.parked[s.head]
		if !ok {
			break
		}
		delete(s.parked, s.head)
		if err := p.flushLocked(); err != nil {
			return err
		}
		s.head++
	}
	s.cond.Broadcast()
	return nil
}

// done reports whether every one of n files has been delivered.
func (s *sequencer) done(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head == n && len(s.parked) == 0
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
	f.s.buffered -= f.size
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
