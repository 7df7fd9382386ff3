package pmcoa

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The per-article state lives on disk as well, so that a bucket of 8
// million articles fits in the same bounded memory as its inventory diff.
// An articles file is a zstd-compressed text file of "PMC123\tversion\t
// shard\n" lines sorted by PMCID, one per article of the mirror (the
// shard is empty for an article still one file under xml/: only in a
// mirror migrated from the former layout). The night's outcomes (an
// article fetched, or gone) form a change log of the same lines, version 0
// meaning gone, cut into sorted runs by the run sorter; the next articles
// file is the last one overlaid by the log and by the shards the packing
// placed articles in, merged in one pass.
//
// Sort orders: a line sorts by its PMCID because a tab sorts before every
// digit ("PMC123\t" before "PMC1234"), and a metadata key
// (metadata/PMC123.2.json) sorts by its PMCID because a dot does too
// ("PMC123." before "PMC1234"); so both sort in the plain string order of
// the PMCIDs and the keys of one PMCID are contiguous. The fetching walks
// the changed keys and the old articles file forward together.

// errOrder means a sorted file was not: a bug, never bad input (the
// adapter writes every sorted file it reads).
var errOrder = errors.New("pmc-oa: sorted state file out of order")

// entry is one line of an articles file or of the change log.
type entry struct {
	id string
	// version is the article's version; 0 in the change log: it left.
	version int
	// shard is the shard holding the article, "" while it is loose.
	shard string
}

func (e entry) article() article { return article{Version: e.version, Shard: e.shard} }

// rest is the line after the PMCID (the run sorter adds the PMCID).
func (e entry) rest() string { return strconv.Itoa(e.version) + "\t" + e.shard }

func parseEntry(line []byte) (entry, error) {
	id, rest, ok1 := bytes.Cut(line, []byte("\t"))
	v, shard, ok2 := bytes.Cut(rest, []byte("\t"))
	n, err := strconv.Atoi(string(v))
	if !ok1 || !ok2 || err != nil || n < 0 || len(id) == 0 {
		return entry{}, fmt.Errorf("pmc-oa: articles line %q unreadable", line)
	}
	return entry{id: string(id), version: n, shard: string(shard)}, nil
}

// entryStream yields entries in PMCID order, one per PMCID.
type entryStream interface {
	next() (entry, bool, error)
	close()
}

// fileEntries reads an articles file.
type fileEntries struct{ r *lineReader }

func openArticles(path string) (entryStream, error) {
	r, err := openKeys(path)
	if err != nil {
		return nil, fmt.Errorf("articles file: %w", err)
	}
	return fileEntries{r}, nil
}

func (f fileEntries) next() (entry, bool, error) {
	ok, err := f.r.next()
	if !ok || err != nil {
		return entry{}, false, err
	}
	e, err := parseEntry(f.r.cur)
	return e, err == nil, err
}

func (f fileEntries) close() { f.r.close() }

// runEntries reads sorted runs of entries (the change log, the shards
// placed).
type runEntries struct{ m *runMerger }

func openRunEntries(runs []string) (entryStream, error) {
	m, err := openMerger(runs, false)
	if err != nil {
		return nil, err
	}
	return runEntries{m}, nil
}

func (r runEntries) next() (entry, bool, error) {
	line, ok, err := r.m.next()
	if !ok || err != nil {
		return entry{}, false, err
	}
	e, err := parseEntry(line)
	return e, err == nil, err
}

func (r runEntries) close() { r.m.close() }

// overlay calls fn with every PMCID of the streams, in order, with the
// entry of the first stream that has it: later streams are older states.
// Entries of version 0 (gone) are passed on too.
func overlay(fn func(entry) error, streams ...entryStream) error {
	heads := make([]entry, len(streams))
	has := make([]bool, len(streams))
	advance := func(i int) error {
		prev := heads[i].id
		e, ok, err := streams[i].next()
		if err != nil {
			return err
		}
		if ok && prev != "" && e.id <= prev {
			return fmt.Errorf("%w: %s after %s", errOrder, e.id, prev)
		}
		heads[i], has[i] = e, ok
		return nil
	}
	for i := range streams {
		if err := advance(i); err != nil {
			return err
		}
	}
	for {
		win := -1
		for i := range streams {
			if has[i] && (win < 0 || heads[i].id < heads[win].id) {
				win = i
			}
		}
		if win < 0 {
			return nil
		}
		e := heads[win]
		for i := range streams {
			if has[i] && heads[i].id == e.id {
				if err := advance(i); err != nil {
					return err
				}
			}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// articleSet is the mirror's articles as the night left them: the last
// articles file overlaid by the change log.
type articleSet struct {
	old     string   // the last articles file ("" for none)
	changes []string // the change log's sorted runs
}

// each calls fn with every article of the set (and of the newer runs
// given, which win over both), in PMCID order, skipping those gone.
func (s articleSet) each(fn func(entry) error, newer ...string) error {
	var streams []entryStream
	defer func() {
		for _, st := range streams {
			st.close()
		}
	}()
	for _, runs := range [][]string{newer, s.changes} {
		if len(runs) == 0 {
			continue
		}
		st, err := openRunEntries(runs)
		if err != nil {
			return err
		}
		streams = append(streams, st)
	}
	old, err := openArticles(s.old)
	if err != nil {
		return err
	}
	streams = append(streams, old)
	return overlay(func(e entry) error {
		if e.version == 0 {
			return nil
		}
		return fn(e)
	}, streams...)
}

// articleCursor looks articles up in an articles file, in PMCID order,
// reading it forward once.
type articleCursor struct {
	s       entryStream
	cur     entry
	ok      bool
	started bool
	last    string
}

func newArticleCursor(path string) (*articleCursor, error) {
	s, err := openArticles(path)
	if err != nil {
		return nil, err
	}
	return &articleCursor{s: s}, nil
}

// get returns the article of id; ids must come in increasing order.
func (c *articleCursor) get(id string) (entry, bool, error) {
	if !c.started {
		c.started = true
		if err := c.advance(); err != nil {
			return entry{}, false, err
		}
	} else if id < c.last {
		return entry{}, false, fmt.Errorf("%w: looked up %s after %s", errOrder, id, c.last)
	}
	c.last = id
	for c.ok && c.cur.id < id {
		if err := c.advance(); err != nil {
			return entry{}, false, err
		}
	}
	if c.ok && c.cur.id == id {
		return c.cur, true, nil
	}
	return entry{}, false, nil
}

func (c *articleCursor) advance() error {
	e, ok, err := c.s.next()
	c.cur, c.ok = e, ok
	return err
}

func (c *articleCursor) close() { c.s.close() }

// keyCursor finds the newest version of a PMCID a keys file lists,
// reading it forward once (PMCIDs in increasing order).
type keyCursor struct {
	r       *lineReader
	ok      bool
	started bool
}

func newKeyCursor(path string) (*keyCursor, error) {
	r, err := openKeys(path)
	if err != nil {
		return nil, err
	}
	return &keyCursor{r: r}, nil
}

func (c *keyCursor) newest(id string) (key, etag string, found bool, err error) {
	if !c.started {
		c.started = true
		if c.ok, err = c.r.next(); err != nil {
			return "", "", false, err
		}
	}
	// Every key of id starts with prefix, and sorts after the keys of
	// the PMCIDs before it.
	prefix := []byte("metadata/" + id + ".")
	best := 0
	for c.ok {
		k, e := split(c.r.cur)
		if bytes.Compare(k, prefix) >= 0 && !bytes.HasPrefix(k, prefix) {
			break
		}
		if kid, v, ok := parseKey(string(k)); ok && kid == id && v > best {
			key, etag, best, found = string(k), string(e), v, true
		}
		if c.ok, err = c.r.next(); err != nil {
			return "", "", false, err
		}
	}
	return key, etag, found, nil
}

func (c *keyCursor) close() { c.r.close() }

// parseKey splits a metadata key, metadata/PMC123.2.json, into PMC123 and
// 2; false for any other key.
func parseKey(key string) (string, int, bool) {
	rest, ok := strings.CutPrefix(key, "metadata/")
	if !ok {
		return "", 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".json")
	if !ok {
		return "", 0, false
	}
	id, v, ok := strings.Cut(rest, ".")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 1 || !pmcidRE.MatchString(id) || strings.ContainsAny(v, "+-") {
		return "", 0, false
	}
	return id, n, true
}

// writeArticlesFromMap writes a checkpoint of the former format (a JSON map
// of every PMCID to its article) as an articles file: read once, when
// migrating.
func writeArticlesFromMap(path string, arts map[string]article) error {
	w, err := createKeys(path)
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(arts)) {
		a := arts[id]
		if !pmcidRE.MatchString(id) || a.Version < 1 {
			continue
		}
		if err := w.write([]byte(id + "\t" + entry{version: a.Version, shard: a.Shard}.rest())); err != nil {
			w.close()
			return err
		}
	}
	return w.close()
}
