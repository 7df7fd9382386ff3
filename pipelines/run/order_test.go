package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
)

// feedFile sends docs records for file i and finishes it.
func feedFile(seq *sequencer, i, docs int) error {
	s := seq.sink(i, func(ingest.Problem) {})
	for k := 0; k < docs; k++ {
		if err := s.Document(&ingest.Document{Title: fmt.Sprintf("%d-%d", i, k)}); err != nil {
			return err
		}
	}
	return s.finish()
}

// A reader that finishes its file before its turn parks the records and
// goes on: a slow head file does not stop the other readers (head-of-line
// blocking left one of two cores idle behind every large file).
func TestSequencerParksFinishedFiles(t *testing.T) {
	out := &recordSink{}
	seq := newSequencer(context.Background(), out, 1<<20)
	head := seq.sink(0, func(ingest.Problem) {})
	if err := head.Document(&ingest.Document{Title: "0-0"}); err != nil {
		t.Fatal(err)
	}
	others := make(chan error, 1)
	go func() {
		for i := 1; i <= 4; i++ {
			if err := feedFile(seq, i, 3); err != nil {
				others <- err
				return
			}
		}
		others <- nil
	}()
	select {
	case err := <-others:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("files 1-4 could not finish while file 0 was being read")
	}
	if got := strings.Join(out.got, " "); got != "0-0" {
		t.Fatalf("delivered %q before file 0 finished", got)
	}
	if err := head.finish(); err != nil {
		t.Fatal(err)
	}
	want := "0-0 1-0 1-1 1-2 2-0 2-1 2-2 3-0 3-1 3-2 4-0 4-1 4-2"
	if got := strings.Join(out.got, " "); got != want || !seq.done(5) || seq.buffered != 0 {
		t.Errorf("delivered %q (done %v, %d bytes still buffered), want %q", got, seq.done(5), seq.buffered, want)
	}
}

// Parked records are bounded: past the limit a finishing reader waits for
// its turn.
func TestSequencerParkingLimit(t *testing.T) {
	out := &recordSink{}
	seq := newSequencer(context.Background(), out, 1<<20)
	seq.limit = 1 // any parked record exceeds it
	head := seq.sink(0, func(ingest.Problem) {})
	finished := make(chan error, 1)
	go func() { finished <- feedFile(seq, 1, 2) }()
	time.Sleep(50 * time.Millisecond)
	select {
	case err := <-finished:
		t.Fatalf("file 1 finished (%v) with more than the limit parked", err)
	default:
	}
	if err := head.finish(); err != nil {
		t.Fatal(err)
	}
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(out.got, " "); got != "1-0 1-1" || !seq.done(2) {
		t.Errorf("delivered %q, done %v", got, seq.done(2))
	}
}

// A parked file is delivered by the reader that finishes the head; when
// the sink fails then, the failure is kept for every reader to see.
func TestSequencerParkedFailure(t *testing.T) {
	out := &recordSink{fail: 2}
	seq := newSequencer(context.Background(), out, 1<<20)
	head := seq.sink(0, func(ingest.Problem) {})
	if err := feedFile(seq, 1, 3); err != nil {
		t.Fatalf("parking file 1: %v", err)
	}
	if err := head.Document(&ingest.Document{Title: "0-0"}); err != nil {
		t.Fatal(err)
	}
	if err := head.finish(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("finish of the head: %v, want the sink's error", err)
	}
	if err := seq.failure(); err == nil {
		t.Error("the sequencer forgot the failure")
	}
	if err := feedFile(seq, 2, 1); err == nil {
		t.Error("a later file was accepted after the failure")
	}
}
