package embed

import (
	"context"
	"sync/atomic"
	"time"
)

// job is one request's texts and where its answer goes.
type job struct {
	texts []string
	done  chan result
}

type result struct {
	vecs   [][]float32
	tokens int
	err    error
}

// batcher runs a model's jobs in batches of up to maxBatch texts, waiting
// at most maxWait after the first job of a batch for more.
type batcher struct {
	m        *model
	jobs     chan *job
	maxBatch int
	maxWait  time.Duration
	stop     chan struct{}
	stopped  chan struct{}

	runs, texts atomic.Int64 // for /v1/embed/models and the tests
	largest     atomic.Int64
}

func newBatcher(m *model, maxBatch int, maxWait time.Duration) *batcher {
	b := &batcher{m: m, jobs: make(chan *job), maxBatch: maxBatch, maxWait: maxWait,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go b.loop()
	return b
}

func (b *batcher) close() {
	close(b.stop)
	<-b.stopped
}

// embed submits texts and waits for their vectors.
func (b *batcher) embed(ctx context.Context, texts []string) ([][]float32, int, error) {
	j := &job{texts: texts, done: make(chan result, 1)}
	select {
	case b.jobs <- j:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	case <-b.stop:
		return nil, 0, errClosed
	}
	select {
	case r := <-j.done:
		return r.vecs, r.tokens, r.err
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
}

func (b *batcher) loop() {
	defer close(b.stopped)
	for {
		var first *job
		select {
		case first = <-b.jobs:
		case <-b.stop:
			return
		}
		batch, n := []*job{first}, len(first.texts)
		timer := time.NewTimer(b.maxWait)
	collect:
		for n < b.maxBatch {
			select {
			case j := <-b.jobs:
				batch = append(batch, j)
				n += len(j.texts)
			case <-timer.C:
				break collect
			}
		}
		timer.Stop()
		b.run(batch)
	}
}

// run embeds the batch's texts in chunks of maxBatch and hands each job
// its vectors.
func (b *batcher) run(batch []*job) {
	var all []string
	for _, j := range batch {
		all = append(all, j.texts...)
	}
	vecs := make([][]float32, 0, len(all))
	tokens := make([]int, 0, len(all))
	var err error
	for start := 0; start < len(all) && err == nil; start += b.maxBatch {
		end := min(len(all), start+b.maxBatch)
		var v [][]float32
		var n []int
		v, n, err = b.m.run(all[start:end])
		vecs = append(vecs, v...)
		tokens = append(tokens, n...)
		b.runs.Add(1)
		b.texts.Add(int64(end - start))
		if int64(end-start) > b.largest.Load() {
			b.largest.Store(int64(end - start))
		}
	}
	off := 0
	for _, j := range batch {
		if err != nil {
			j.done <- result{err: err}
			continue
		}
		n := 0
		for _, t := range tokens[off : off+len(j.texts)] {
			n += t
		}
		j.done <- result{vecs: vecs[off : off+len(j.texts)], tokens: n}
		off += len(j.texts)
	}
}
