package run

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/ingest"
)

// MaxListed bounds the problems and skipped files kept by path in a
// Summary; beyond it they are only counted.
const MaxListed = 1000

// Skip is a file that was not read, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Summary is what a run did. Its JSON form is stable (the CLI prints it
// with --json).
type Summary struct {
	Snapshot    string `json:"snapshot,omitempty"`     // id of the published snapshot
	SnapshotDir string `json:"snapshot_dir,omitempty"` // its directory

	Files   int            `json:"files"`   // files found
	Bytes   int64          `json:"bytes"`   // bytes of the files read (as stored, compressed)
	Formats map[string]int `json:"formats"` // files read, by detected format ("crossref/jsonl+gzip")
	Skipped int            `json:"skipped"` // files that are not data (or have no reader)
	// SkippedFiles lists up to MaxListed skipped files with the reason.
	SkippedFiles []Skip `json:"skipped_files,omitempty"`
	// Problems counts files and records that could not be read;
	// ProblemList holds up to MaxListed of them, with their paths.
	Problems    int              `json:"problems"`
	ProblemList []ingest.Problem `json:"problem_list,omitempty"`
	// TooLarge counts the problems that are records or streams over a
	// reader cap (reason record_too_large, or a decompression bound);
	// documents over a served-field cap are in RejectedByReason instead.
	TooLarge int `json:"too_large"`

	Read      int64 `json:"read"`      // records received from the readers
	Deletions int64 `json:"deletions"` // deletion requests (PubMed DeleteCitation)
	Carried   int64 `json:"carried"`   // documents carried over from the previous snapshot
	Merged    int64 `json:"merged"`    // records folded into another record's document
	// Superseded records were replaced by a newer version of the same
	// source (part of Merged).
	Superseded int64 `json:"superseded"`
	Deleted    int64 `json:"deleted"` // documents removed by deletions or retractions

	Accepted          int64            `json:"accepted"`
	AcceptedByLicence map[string]int64 `json:"accepted_by_licence"`
	Rejected          int64            `json:"rejected"`
	RejectedByReason  map[string]int64 `json:"rejected_by_reason"`
	// Topics counts published documents per topic slug.
	Topics map[string]int64 `json:"topics"`

	Elapsed time.Duration `json:"elapsed_ns"`
}

// DocsPerSecond is the reading rate: records per second of the whole run.
func (s *Summary) DocsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Read) / s.Elapsed.Seconds()
}

// MBPerSecond is the input rate in MB (10^6 bytes) per second.
func (s *Summary) MBPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Bytes) / 1e6 / s.Elapsed.Seconds()
}

// collector adds problems and skips to a Summary from several goroutines.
type collector struct {
	mu  sync.Mutex
	sum *Summary
}

func (c *collector) problem(p ingest.Problem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sum.Problems++
	if strings.Contains(p.Reason, ingest.ReasonTooLarge) || strings.Contains(p.Reason, "decompression bound") {
		c.sum.TooLarge++
	}
	if len(c.sum.ProblemList) < MaxListed {
		c.sum.ProblemList = append(c.sum.ProblemList, p)
	}
}

func (c *collector) skip(k Skip) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sum.Skipped++
	if len(c.sum.SkippedFiles) < MaxListed {
		c.sum.SkippedFiles = append(c.sum.SkippedFiles, k)
	}
}

// sortLists orders the listed problems and skips by path, so the report
// does not depend on which reader finished first.
func (s *Summary) sortLists() {
	slices.SortStableFunc(s.ProblemList, func(a, b ingest.Problem) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Record, b.Record))
	})
	slices.SortStableFunc(s.SkippedFiles, func(a, b Skip) int { return cmp.Compare(a.Path, b.Path) })
}

// WriteText writes the human-readable summary printed at the end of
// `openshelf ingest`.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "  %-10s %s\n", label, fmt.Sprintf(format, args...))
	}
	p("ingest summary\n")
	if s.Snapshot != "" {
		line("snapshot", "%s (%s)", s.Snapshot, s.SnapshotDir)
	} else {
		line("snapshot", "none published")
	}
	data := 0
	for _, n := range s.Formats {
		data += n
	}
	line("files", "%d found, %d data files (%s), %d skipped", s.Files, data, megabytes(s.Bytes), s.Skipped)
	if len(s.Formats) > 0 {
		line("formats", "%s", counts(s.Formats))
	}
	line("records", "%d read, %d deletions, %d carried over", s.Read, s.Deletions, s.Carried)
	line("merged", "%d (%d superseded versions), %d deleted or retracted", s.Merged, s.Superseded, s.Deleted)
	line("accepted", "%d%s", s.Accepted, paren(counts(s.AcceptedByLicence)))
	line("rejected", "%d%s", s.Rejected, paren(counts(s.RejectedByReason)))
	line("topics", "%d with documents%s", len(s.Topics), paren(counts(s.Topics)))
	line("problems", "%d (%d over a size cap)", s.Problems, s.TooLarge)
	line("elapsed", "%s, %.0f documents/s, %.1f MB/s", s.Elapsed.Round(time.Millisecond), s.DocsPerSecond(), s.MBPerSecond())
	if len(s.SkippedFiles) > 0 {
		p("skipped files:\n")
		for _, k := range s.SkippedFiles {
			p("  %s: %s\n", k.Path, k.Reason)
		}
		if s.Skipped > len(s.SkippedFiles) {
			p("  ... and %d more\n", s.Skipped-len(s.SkippedFiles))
		}
	}
	if len(s.ProblemList) > 0 {
		p("problems:\n")
		for _, pr := range s.ProblemList {
			if pr.Record != "" {
				p("  %s [%s]: %s\n", pr.Path, pr.Record, pr.Reason)
			} else {
				p("  %s: %s\n", pr.Path, pr.Reason)
			}
		}
		if s.Problems > len(s.ProblemList) {
			p("  ... and %d more\n", s.Problems-len(s.ProblemList))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func paren(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// counts renders a map as "a 3, b 2" by decreasing count, then key.
func counts[V int | int64](m map[string]V) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
