package index

import "sync/atomic"

// worker runs fn on every item sent to it, in the order sent, in a
// goroutine of its own, so the builder's goroutine (which every document
// goes through) can go on with the next document meanwhile. The queue is
// short, so memory stays bounded. After fn fails, later items are
// dropped and the error is returned by the next send and by stop.
type worker[T any] struct {
	items  chan T
	done   chan struct{}
	err    atomic.Pointer[error]
	closed bool // items is closed
}

func newWorker[T any](queue int, fn func(T) error) *worker[T] {
	w := &worker[T]{items: make(chan T, queue), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for it := range w.items {
			if w.err.Load() != nil {
				continue
			}
			if err := fn(it); err != nil {
				w.err.Store(&err)
			}
		}
	}()
	return w
}

func (w *worker[T]) failure() error {
	if p := w.err.Load(); p != nil {
		return *p
	}
	return nil
}

// send queues it. Only one goroutine sends.
func (w *worker[T]) send(it T) error {
	if err := w.failure(); err != nil {
		return err
	}
	if w.closed {
		return ErrFinished
	}
	w.items <- it
	return nil
}

// stop waits until every queued item is done and returns fn's error.
// It may be called more than once.
func (w *worker[T]) stop() error {
	if !w.closed {
		w.closed = true
		close(w.items)
	}
	<-w.done
	return w.failure()
}
