package nightly

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDisplay: one line per source with files, bytes, rate and ETA, and
// the outcome once finished; redrawn in place.
func TestDisplay(t *testing.T) {
	var buf bytes.Buffer
	d := &Display{w: &buf, interval: time.Hour, sources: map[string]*SourceProgress{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go d.loop()
	a, b := d.Source("pmc-oa"), d.Source("crossref-works")
	a.start = time.Now().Add(-10 * time.Second)
	a.Plan(10, -1)
	a.Done(5)
	a.Bytes(50e6)
	b.Plan(3, -1)
	b.Finish(errors.New("boom"))
	d.draw()
	first := buf.String()
	for _, want := range []string{"pmc-oa", "5/10", "50.0 MB", "5.0 MB/s", "ETA 10s", "crossref-works", "failed"} {
		if !strings.Contains(first, want) {
			t.Errorf("display lacks %q:\n%s", want, first)
		}
	}
	a.Finish(nil)
	d.Stop()
	if !strings.Contains(buf.String(), "\x1b[2F") {
		t.Error("the second drawing does not move back over the first")
	}
}
