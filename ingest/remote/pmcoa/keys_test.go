package pmcoa

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
)

// TestDiffKeys: runs far smaller than the inventory (many runs, a key
// listed twice) merge into the same diff as a map would give.
func TestDiffKeys(t *testing.T) {
	dir := t.TempDir()
	prev := map[string]string{}
	next := map[string]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		k := fmt.Sprintf("metadata/PMC%d.%d.json", i, 1+i%3)
		if i%10 != 0 { // 10 % new
			prev[k] = fmt.Sprintf("%032x", i)
		}
		switch {
		case i%7 == 0: // gone
		case i%5 == 0:
			next[k] = fmt.Sprintf("%032x", i+1) // changed
		default:
			next[k] = fmt.Sprintf("%032x", i)
		}
	}
	prev["metadata/PMC999999.1.json"] = "x" // gone, sorts last
	if err := writeKeysFromMap(filepath.Join(dir, "prev"), prev); err != nil {
		t.Fatal(err)
	}
	s, err := newRunSorter(filepath.Join(dir, "work"))
	if err != nil {
		t.Fatal(err)
	}
	s.limit = 500
	keys := make([]string, 0, len(next))
	for k := range next {
		keys = append(keys, k)
	}
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = append(keys, keys[0]) // listed twice
	for _, k := range keys {
		if err := s.add(k, next[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if len(s.runs) < 10 {
		t.Fatalf("%d runs, want many", len(s.runs))
	}
	var removed []string
	d, err := diffKeys(s.runs, filepath.Join(dir, "prev"), filepath.Join(dir, "next"), filepath.Join(dir, "changed"), func(k string) { removed = append(removed, k) })
	if err != nil {
		t.Fatal(err)
	}
	var wantChanged, wantRemoved []string
	for k, e := range next {
		if prev[k] != e {
			wantChanged = append(wantChanged, k)
		}
	}
	for k := range prev {
		if _, ok := next[k]; !ok {
			wantRemoved = append(wantRemoved, k)
		}
	}
	slices.Sort(wantChanged)
	slices.Sort(wantRemoved)
	var gotChanged []string
	r, err := openRun(d.Changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := eachBatch(r, 100, func(ks, es []string) error {
		for i, k := range ks {
			if next[k] != es[i] {
				t.Errorf("changed %s carries ETag %s, want %s", k, es[i], next[k])
			}
		}
		gotChanged = append(gotChanged, ks...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotChanged, wantChanged) || !slices.Equal(removed, wantRemoved) {
		t.Errorf("changed %d (want %d), removed %d (want %d)", len(gotChanged), len(wantChanged), len(removed), len(wantRemoved))
	}
	if d.Keys != int64(len(next)) || d.Previous != int64(len(prev)) || d.Count != int64(len(wantChanged)) {
		t.Errorf("diff %+v; want %d keys, %d previous", d, len(next), len(prev))
	}
	// The new checkpoint is the whole new inventory, sorted.
	nk, err := openKeys(filepath.Join(dir, "next"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	if err := eachBatch(nk, 1000, func(ks, _ []string) error { all = append(all, ks...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(next) || !slices.IsSorted(all) {
		t.Errorf("checkpoint: %d keys, sorted %v", len(all), slices.IsSorted(all))
	}
	if _, err := os.Stat(filepath.Join(dir, "next")); err != nil {
		t.Fatal(err)
	}
}

// TestShardBounds: a shard closes at its member count or its byte bound,
// whichever comes first, and never holds less than one article.
func TestShardBounds(t *testing.T) {
	dir := t.TempDir()
	p := newPacker(dir, time.Date(2026, 12, 7, 3, 30, 0, 0, time.UTC), 3, false)
	p.maxBytes = 12_000
	for i, size := range []int{100, 100, 100, 100, 6000, 6000, 20_000} {
		if err := p.add(fmt.Sprintf("PMC%d", i+1), 1, int64(size), strings.NewReader(strings.Repeat("x", size))); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.closeShard(); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, name := range slices.Sorted(maps.Keys(p.counts)) {
		got = append(got, p.counts[name])
	}
	// 3 by count; 100+6000 by bytes; 6000; the oversized one alone.
	if want := []int{3, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("shard members %v, want %v", got, want)
	}
}

// TestLiveFilter: only the member the articles file names passes, in
// the shard it names, whether the build names the shard as given or
// absolute; other files pass.
func TestLiveFilter(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join("state", "pmc-oa-inventory", "shards")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	file, index := writeLiveFile(t, tmp, [][2]string{{"b.tar.zst", "PMC1.2.xml"}, {"a.tar.zst", "PMC3.1.xml"}})
	f := newLiveFilter(dir, file, index, nil)
	tests := []struct {
		origin string
		want   bool
	}{
		{filepath.Join(dir, "b.tar.zst") + "!PMC1.2.xml", true},
		{filepath.Join(abs, "b.tar.zst") + "!PMC1.2.xml", true},
		{filepath.Join(abs, "b.tar.zst") + "!PMC1.1.xml", false}, // superseded
		{filepath.Join(abs, "a.tar.zst") + "!PMC1.2.xml", false}, // not the shard named
		{filepath.Join(dir, "a.tar.zst") + "!PMC3.1.xml", true},
		{filepath.Join(dir, "a.tar.zst") + "!PMC2.1.xml", false}, // removed
		{filepath.Join(dir, "c.tar.zst") + "!PMC2.1.xml", false}, // a shard with no live member
		{filepath.Join(dir, "a.tar.zst") + "!notes.xml", false},
		{filepath.Join("elsewhere", "pkg.tar.gz") + "!PMC2.1.xml", true},
		{"crossref/page.json", true},
	}
	for _, tc := range tests {
		if got := f.keep("", &ingest.Document{Origin: tc.origin}); got != tc.want {
			t.Errorf("%s: keep %v, want %v", tc.origin, got, tc.want)
		}
	}
}

// TestLiveFilterCache: more shards than the cache holds, read twice over
// by interleaved readers, keep exactly their live members.
func TestLiveFilterCache(t *testing.T) {
	tmp := t.TempDir()
	var lines [][2]string
	for s := range 3 * liveCache {
		for m := range 3 {
			lines = append(lines, [2]string{fmt.Sprintf("s%03d.tar", s), fmt.Sprintf("PMC%d.1.xml", s*10+m)})
		}
	}
	file, index := writeLiveFile(t, tmp, lines)
	f := newLiveFilter(tmp, file, index, nil)
	for round := range 2 {
		for s := range 3 * liveCache {
			for _, tc := range []struct {
				m    int
				want bool
			}{{0, true}, {1, true}, {2, true}, {3, false}} {
				origin := filepath.Join(tmp, fmt.Sprintf("s%03d.tar", s)) + fmt.Sprintf("!PMC%d.1.xml", s*10+tc.m)
				if got := f.keep("", &ingest.Document{Origin: origin}); got != tc.want {
					t.Errorf("round %d: %s: keep %v, want %v", round, origin, got, tc.want)
				}
			}
		}
	}
	if len(f.cache) > liveCache {
		t.Errorf("%d shards cached, want at most %d", len(f.cache), liveCache)
	}
}

// writeLiveFile writes the live file of (shard, member) pairs, given in
// any order, and returns its path and index.
func writeLiveFile(t *testing.T, dir string, lines [][2]string) (string, map[string]span) {
	t.Helper()
	s, err := newRunSorter(filepath.Join(dir, "live-work"))
	if err != nil {
		t.Fatal(err)
	}
	s.limit = 200 // several runs
	for _, l := range lines {
		if err := s.add(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "live.tsv.zst")
	index, err := writeLive(path, s.runs)
	if err != nil {
		t.Fatal(err)
	}
	return path, index
}

// eachBatch calls fn with the key and ETag of every line of a plain or
// keys file, in batches of up to n (the slices are fresh copies).
func eachBatch(r *lineReader, n int, fn func(keys, etags []string) error) error {
	defer r.close()
	var keys, etags []string
	for {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			k, e := split(r.cur)
			keys, etags = append(keys, string(k)), append(etags, string(e))
		}
		if len(keys) == n || (!ok && len(keys) > 0) {
			if err := fn(keys, etags); err != nil {
				return err
			}
			keys, etags = nil, nil
		}
		if !ok {
			return nil
		}
	}
}
