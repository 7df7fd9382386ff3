package index

import (
	"bufio"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// Tiers is the merge policy of delta builds, after Lucene's tiered and
// log merge policies: segments are grouped into tiers by their live
// documents, each tier ten times the size of the one below (all segments
// under Floor documents are tier 0); when a tier holds PerTier segments
// or more, a delta build merges all of them into its new segment, and it
// also rewrites every segment whose deleted share exceeds MaxDeleted. So
// the number of segments stays about PerTier a tier (a few tiers in all),
// and a document is rewritten once a tier it climbs, not every night.
type Tiers struct {
	PerTier    int     // default 10
	Floor      int64   // default 10 000 documents
	MaxDeleted float64 // default 0.2
}

func (t *Tiers) defaults() {
	if t.PerTier <= 1 {
		t.PerTier = 10
	}
	if t.Floor <= 0 {
		t.Floor = 10_000
	}
	if t.MaxDeleted <= 0 {
		t.MaxDeleted = 0.2
	}
}

// tier is the tier of a segment of live documents.
func (t Tiers) tier(live int64) int {
	if live < t.Floor {
		return 0
	}
	return 1 + int(math.Log10(float64(live)/float64(t.Floor)))
}

// plan returns which of the previous snapshot's segments (oldest first) a
// delta build merges into its new one. The new segment counts in tier 0.
func (t Tiers) plan(segs []*oldSegment) []bool {
	merge := make([]bool, len(segs))
	count := map[int]int{0: 1}
	tiers := make([]int, len(segs))
	for i, g := range segs {
		live := g.Documents - int64(len(g.deleted))
		tiers[i] = t.tier(live)
		count[tiers[i]]++
		if g.Documents > 0 && float64(len(g.deleted)) > t.MaxDeleted*float64(g.Documents) {
			merge[i] = true
		}
	}
	for i := range segs {
		if count[tiers[i]] > t.PerTier {
			merge[i] = true
		}
	}
	return merge
}

// A licence decision depends on the date only through evidence that takes
// effect later (licence.Evidence.Start after the run's time): a full
// build decides every document again, so a delta build merges those
// documents again each time. Each segment lists them in datedFile, one id
// a line, sorted; a segment with records (records.go) lists its rejected
// works of such evidence too, whose records a delta build then carries.
const datedFile = "dated.txt"

func datedLicence(d *ingest.Document, now time.Time) bool {
	for _, e := range d.Licence.Evidence {
		if e.Start.After(now) {
			return true
		}
	}
	return false
}

// writeDated writes the segment's datedFile, if it has dated documents.
func (b *Builder) writeDated() (*snapshot.File, error) {
	if len(b.dated) == 0 {
		return nil, nil
	}
	f, err := writeWholeFile(b.dir, datedFile, []byte(strings.Join(b.dated, "\n")+"\n"), int64(len(b.dated)))
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// readDated lists the dated documents of the segment in dir.
func readDated(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, datedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := sc.Text(); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, sc.Err()
}
