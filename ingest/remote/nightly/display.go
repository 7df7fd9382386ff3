package nightly

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Display draws one line per source on a terminal (files, bytes, rate,
// ETA), redrawn in place every Interval until Stop.
type Display struct {
	w        io.Writer
	interval time.Duration
	mu       sync.Mutex
	order    []string
	sources  map[string]*SourceProgress
	drawn    int
	stop     chan struct{}
	done     chan struct{}
}

// NewDisplay starts a display on w (a terminal).
func NewDisplay(w io.Writer) *Display {
	d := &Display{w: w, interval: 250 * time.Millisecond, sources: map[string]*SourceProgress{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go d.loop()
	return d
}

// SourceProgress is one source's counters; it implements remote.Progress.
type SourceProgress struct {
	start        time.Time
	planned      atomic.Int64 // files; -1 unknown
	plannedBytes atomic.Int64
	files, bytes atomic.Int64
	state        atomic.Value // string: "", "done", "failed"
}

// Source returns the progress of the named source, created on first use.
func (d *Display) Source(name string) *SourceProgress {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.sources[name]
	if !ok {
		p = &SourceProgress{start: time.Now()}
		p.planned.Store(-1)
		p.plannedBytes.Store(-1)
		d.sources[name] = p
		d.order = append(d.order, name)
	}
	return p
}

// Plan implements remote.Progress.
func (p *SourceProgress) Plan(files int, bytes int64) {
	p.planned.Store(int64(files))
	p.plannedBytes.Store(bytes)
}

// Done implements remote.Progress.
func (p *SourceProgress) Done(files int) { p.files.Add(int64(files)) }

// Bytes counts received bytes.
func (p *SourceProgress) Bytes(n int64) { p.bytes.Add(n) }

// Finish marks the source done or failed.
func (p *SourceProgress) Finish(err error) {
	if err != nil {
		p.state.Store("failed")
	} else {
		p.state.Store("done")
	}
}

func (p *SourceProgress) line(name string) string {
	el := time.Since(p.start).Seconds()
	files, bytes := p.files.Load(), p.bytes.Load()
	rate := 0.0
	if el > 0 {
		rate = float64(bytes) / 1e6 / el
	}
	planned := p.planned.Load()
	total := "?"
	if planned >= 0 {
		total = fmt.Sprint(planned)
	}
	eta := ""
	switch st, _ := p.state.Load().(string); {
	case st != "":
		eta = st
	case planned > 0 && files > 0 && files < planned:
		left := time.Duration(float64(planned-files) / (float64(files) / el) * float64(time.Second))
		eta = "ETA " + left.Round(time.Second).String()
	}
	return fmt.Sprintf("%-16s %6d/%-6s files %9.1f MB %7.1f MB/s  %s", name, files, total, float64(bytes)/1e6, rate, eta)
}

func (d *Display) loop() {
	defer close(d.done)
	t := time.NewTicker(d.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			d.draw()
		case <-d.stop:
			d.draw()
			return
		}
	}
}

func (d *Display) draw() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.drawn > 0 {
		fmt.Fprintf(d.w, "\x1b[%dF", d.drawn) // back to the first line
	}
	for _, name := range d.order {
		fmt.Fprintf(d.w, "\x1b[2K%s\n", d.sources[name].line(name))
	}
	d.drawn = len(d.order)
}

// Stop draws the final state and stops redrawing.
func (d *Display) Stop() {
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
	<-d.done
}
