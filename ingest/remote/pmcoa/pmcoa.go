// Package pmcoa is the nightly adapter for the PMC Open Access cloud
// bucket (kind "s3-inventory", s3://pmc-oa-opendata/, public HTTPS, no
// credentials). It reads the newest daily S3 Inventory report of the
// metadata/ prefix (inventory-reports/pmc-oa-opendata/metadata/<date>/
// manifest.json, whose files are gzip CSVs with the columns its fileSchema
// names), diffs (key, ETag) against the last good run, fetches the
// changed metadata/PMC<id>.<version>.json and gates each article on what it
// says before downloading anything else:
//
//   - is_pmc_openaccess must be true (params.require; the bucket also holds
//     the Author Manuscript Dataset),
//   - is_retracted must be false (params.skip_retracted; a retracted article
//     leaves the mirror),
//   - license_code must be a licence the source publishes (CC0, CC BY,
//     CC BY-SA; never TDM or NC/ND codes),
//
// and only then fetches the JATS XML from xml_url, verified by the md5 the
// URL carries. Versions of an article collapse to the newest: the mirror
// holds one copy per PMCID, packed into tar shards (shards.go).
//
// The diff runs on disk in bounded memory (keys.go): the inventory's pairs
// are sorted in runs and merged against the sorted keys file of the last
// inventory applied, the checkpoint. So does the per-article state
// (articles.go): a sorted articles file, read forward batch by batch as
// the changed keys are fetched, and merged with the night's sorted change
// log into the next one; and the build's filter (live.go), which loads one
// shard's live members at a time. An inventory listing fewer than half the
// keys of the last one is refused, at any size (ErrShrunk).
package pmcoa

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
)

// Adapter implements remote.Adapter for the PMC OA bucket.
type Adapter struct{}

// article is one PMCID in the mirror.
type article struct {
	Version int `json:"version"`
	// Shard is the shard under shards/ holding the article; "" while
	// it is loose: its own file xml/PMC<id>.<version>.xml, between its
	// download and its packing, or in a mirror written before shards.
	Shard string `json:"shard,omitempty"`
	// File is the loose file's name in the former checkpoint.
	File string `json:"file,omitempty"`
}

// state is the committed checkpoint.
type state struct {
	// Inventory is the date folder of the last inventory applied.
	Inventory string `json:"inventory,omitempty"`
	// Keys is the keys file (see keys.go) of that inventory: every
	// metadata key with its ETag, sorted.
	Keys string `json:"keys,omitempty"`
	// ArticlesFile is the articles file (see articles.go): every PMCID
	// of the mirror with its version and shard, sorted.
	ArticlesFile string `json:"articles_file,omitempty"`
	// Live is the live file (see live.go) of the mirror the articles
	// file describes: its members sorted by shard, for the build.
	Live string `json:"live,omitempty"`
	// Shards maps each shard of the mirror to its number of members.
	Shards map[string]int `json:"shards,omitempty"`

	// ETags and Articles are the former forms of Keys and ArticlesFile
	// (JSON maps), read once to write the first keys and articles
	// files.
	ETags    map[string]string  `json:"etags,omitempty"`
	Articles map[string]article `json:"articles,omitempty"`
}

// Metadata is the per-article JSON of the bucket (metadata/PMCxxx.N.json);
// only the fields the adapter reads.
type Metadata struct {
	PMCID           string  `json:"pmcid"`
	Version         int     `json:"version"`
	IsPMCOpenAccess bool    `json:"is_pmc_openaccess"`
	IsRetracted     bool    `json:"is_retracted"`
	LicenseCode     *string `json:"license_code"`
	XMLURL          string  `json:"xml_url"`
}

// inventoryManifest is an S3 Inventory manifest.json (CSV format).
type inventoryManifest struct {
	FileFormat string `json:"fileFormat"`
	FileSchema string `json:"fileSchema"`
	Files      []struct {
		Key         string `json:"key"`
		Size        int64  `json:"size"`
		MD5checksum string `json:"MD5checksum"`
	} `json:"files"`
}

var (
	dateDirRE = regexp.MustCompile(`(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}Z)/?$`)
	pmcidRE   = regexp.MustCompile(`^PMC\d{1,12}$`)
)

// ErrShrunk means the new inventory lists fewer than half the keys of the
// last one applied: a broken report is refused rather than emptying the
// mirror, whatever the archive's size.
var ErrShrunk = errors.New("pmc-oa: inventory lost half the bucket")

// batch is about how many changed keys are fetched between two reads of
// the state files (a batch never splits the keys of one PMCID).
const batch = 4096

// Fetch implements remote.Adapter.
func (Adapter) Fetch(ctx context.Context, env *remote.Env) (*remote.Result, error) {
	var st state
	if _, err := remote.LoadJSON(filepath.Join(env.Dir, remote.StateFile), &st); err != nil {
		return nil, err
	}
	if err := migrate(env.Dir, &st); err != nil {
		return nil, err
	}
	bucket := remote.BucketBase(env)
	next, d, err := diffInventory(ctx, env, bucket, &st)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(env.Dir, "work")
	n := &night{env: env, bucket: bucket, fetch: fetchArticle, size: batch}
	changes, err := n.run(ctx, d, filepath.Join(work, "removed"), statePath(env.Dir, st.ArticlesFile), statePath(env.Dir, next.Keys), filepath.Join(work, "changes"))
	if err != nil {
		return nil, err
	}
	filter, moved, err := settle(settleEnv{
		packEnv: packEnv{dir: filepath.Join(env.Dir, shardsDir), xmlDir: filepath.Join(env.Dir, "xml"), work: work, now: env.Now,
			shardArticles: intParam(env, "shard_articles", defaultShardArticles),
			compress:      env.Param("shard_compression", "zstd") != "none"},
		stateDir: env.Dir, log: env.Logger,
	}, &st, &next, changes)
	if err != nil {
		return nil, err
	}
	shards := slices.Sorted(maps.Keys(next.Shards))
	files := make([]string, len(shards))
	for i, s := range shards {
		files[i] = filepath.Join(env.Dir, shardsDir, s)
	}
	env.Stats.Cursor = next.Inventory
	gone, err := changedIDs(changes)
	if err != nil {
		return nil, err
	}
	var fresh []string
	for i, s := range shards {
		if _, old := st.Shards[s]; !old {
			fresh = append(fresh, files[i])
		}
	}
	return &remote.Result{
		Files:   files,
		Delta:   true,
		New:     fresh,
		Gone:    gone,
		Format:  "jats-package",
		Filter:  filter.keep,
		State:   next,
		Changed: n.changed > 0 || moved > 0,
		Cleanup: func() { cleanup(env.Dir, next) },
	}, nil
}

// changedIDs returns the project ids of the articles the change log
// names: new versions and articles that left the mirror.
func changedIDs(changes []string) ([]string, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	st, err := openRunEntries(changes)
	if err != nil {
		return nil, err
	}
	defer st.close()
	var out []string
	for {
		e, ok, err := st.next()
		if err != nil {
			return nil, fmt.Errorf("change log: %w", err)
		}
		if !ok {
			return out, nil
		}
		out = append(out, "pmc-"+strings.TrimPrefix(e.id, "PMC"))
	}
}

// settleEnv is where settle writes.
type settleEnv struct {
	packEnv
	stateDir string
	log      *slog.Logger
}

// settle packs the night's loose articles (and compacts), then writes the
// next articles file and live file, merging the last articles file with
// the change log and the shards placed, and next's shard list. It returns
// the build's filter and how many articles were written to new shards.
func settle(env settleEnv, st, next *state, changes []string) (*liveFilter, int, error) {
	set := articleSet{old: statePath(env.stateDir, st.ArticlesFile), changes: changes}
	p, err := pack(env.packEnv, st.Shards, set)
	if err != nil {
		return nil, 0, err
	}
	next.ArticlesFile = runFile("articles", env.now, st.ArticlesFile)
	next.Live = runFile("live", env.now, st.Live)
	w, err := createKeys(statePath(env.stateDir, next.ArticlesFile))
	if err != nil {
		return nil, 0, err
	}
	members, err := newRunSorter(filepath.Join(env.work, "live"))
	if err != nil {
		w.close()
		return nil, 0, err
	}
	members.limit = stateRunBytes
	live := map[string]int{}
	err = set.each(func(e entry) error {
		if e.shard == "" {
			return fmt.Errorf("pmc-oa: %s left unpacked", e.id)
		}
		live[e.shard]++
		if err := w.write([]byte(e.id + "\t" + e.rest())); err != nil {
			return err
		}
		return members.add(e.shard, member(e.id, e.version))
	}, p.placed...)
	if e := w.close(); err == nil {
		err = e
	}
	if err == nil {
		err = members.finish()
	}
	var index map[string]span
	if err == nil {
		index, err = writeLive(statePath(env.stateDir, next.Live), members.runs)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("writing the articles file: %w", err)
	}
	// Shards keep their member count (live or not) until compacted; a
	// shard no article points to any more is dropped.
	next.Shards = map[string]int{}
	for name, n := range st.Shards {
		if live[name] > 0 {
			next.Shards[name] = n
		}
	}
	for name, n := range p.counts {
		next.Shards[name] = n
	}
	return newLiveFilter(env.dir, statePath(env.stateDir, next.Live), index, env.log), p.Placed, nil
}

// diffInventory reads the newest inventory and diffs it against the
// checkpoint st on disk, writing the keys st's inventory listed and the
// new one no longer does to work/removed. It returns the next state (the
// new inventory and keys file) and the diff. A shrunk inventory is
// refused.
func diffInventory(ctx context.Context, env *remote.Env, bucket string, st *state) (state, diff, error) {
	work := filepath.Join(env.Dir, "work")
	if err := os.RemoveAll(work); err != nil {
		return state{}, diff{}, err
	}
	date, runs, err := inventory(ctx, env, bucket, work)
	if err != nil {
		return state{}, diff{}, err
	}
	next := state{Inventory: date, Keys: runFile("keys", env.Now, st.Keys)}
	rf, err := os.Create(filepath.Join(work, "removed"))
	if err != nil {
		return state{}, diff{}, err
	}
	rw := bufio.NewWriterSize(rf, 256<<10)
	d, err := diffKeys(runs, statePath(env.Dir, st.Keys), statePath(env.Dir, next.Keys), filepath.Join(work, "changed"), func(key string) {
		rw.WriteString(key)
		rw.WriteByte('\n')
	})
	if e := rw.Flush(); err == nil {
		err = e
	}
	if e := rf.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = shrunk(date, d)
	}
	if err != nil {
		os.Remove(statePath(env.Dir, next.Keys))
		return state{}, diff{}, err
	}
	env.Stats.Add(0, d.Keys-d.Count, 0)
	env.Logger.Info("pmc-oa: inventory read", "inventory", date, "keys", d.Keys, "changed", d.Count, "previous", st.Inventory)
	if env.Progress != nil {
		env.Progress.Plan(int(d.Count), -1)
	}
	return next, d, nil
}

// fetchFunc fetches one changed key into the batch's articles.
type fetchFunc func(ctx context.Context, env *remote.Env, bucket, key, etag string, b *batchArticles) error

// batchArticles are the articles of one batch's PMCIDs, as the night
// leaves them; the fetching workers share it.
type batchArticles struct {
	mu   sync.Mutex
	arts map[string]article
}

// night fetches what the inventory diff found, a batch of PMCIDs at a
// time, and logs the outcomes.
type night struct {
	env    *remote.Env
	bucket string
	fetch  fetchFunc
	// size is the batch size (batch).
	size int
	// changed counts the PMCIDs whose article changed (fetched, gone).
	changed int
}

// group is what tonight's diff says of one PMCID: its changed keys and
// the versions whose keys the inventory no longer lists.
type group struct {
	id          string
	keys, etags []string
	removed     []int
}

// run reads the changed keys (d.Changed) and the removed ones (removed),
// both in key order, a batch of PMCIDs at a time: it loads the batch's
// articles from the articles file (read forward once), fetches the
// changed keys, takes out the articles whose version was withdrawn and
// fetches the newest version the new keys file still lists in their
// place. The outcomes go to a change log sorted by the run sorter, whose
// runs it returns.
func (n *night) run(ctx context.Context, d diff, removed, articles, keys, changes string) ([]string, error) {
	cr, err := openRun(d.Changed)
	if err != nil {
		return nil, err
	}
	defer cr.close()
	rr, err := openRun(removed)
	if err != nil {
		return nil, err
	}
	defer rr.close()
	old, err := newArticleCursor(articles)
	if err != nil {
		return nil, err
	}
	defer old.close()
	kc, err := newKeyCursor(keys)
	if err != nil {
		return nil, err
	}
	defer kc.close()
	log, err := newRunSorter(changes)
	if err != nil {
		return nil, err
	}
	log.limit = stateRunBytes
	gr := &groupReader{changed: cr, removed: rr, reject: func() {
		n.env.Stats.Reject("unreadable-key")
		if n.env.Progress != nil {
			n.env.Progress.Done(1)
		}
	}}
	var groups []group
	size := 0
	for {
		g, ok, err := gr.next()
		if err != nil {
			return nil, err
		}
		if ok {
			groups = append(groups, g)
			size += len(g.keys) + len(g.removed)
		}
		if size >= n.size || (!ok && len(groups) > 0) {
			if err := n.batch(ctx, groups, old, kc, log); err != nil {
				return nil, err
			}
			groups, size = groups[:0], 0
		}
		if !ok {
			break
		}
	}
	if err := log.finish(); err != nil {
		return nil, err
	}
	return log.runs, nil
}

// batch fetches one batch of PMCIDs (in PMCID order) and logs what
// changed.
func (n *night) batch(ctx context.Context, groups []group, old *articleCursor, kc *keyCursor, log *runSorter) error {
	was := map[string]article{}
	var keys, etags []string
	for _, g := range groups {
		e, ok, err := old.get(g.id)
		if err != nil {
			return err
		}
		if ok {
			was[g.id] = e.article()
		}
		keys, etags = append(keys, g.keys...), append(etags, g.etags...)
	}
	b := &batchArticles{arts: maps.Clone(was)}
	err := remote.Each(ctx, len(keys), 8, func(ctx context.Context, i int) error {
		defer func() {
			if n.env.Progress != nil {
				n.env.Progress.Done(1)
			}
		}()
		return n.fetch(ctx, n.env, n.bucket, keys[i], etags[i], b)
	})
	if err != nil {
		return err
	}
	// A withdrawn version leaves unless a newer one arrived tonight; the
	// newest version the inventory still lists takes its place.
	keys, etags = keys[:0], etags[:0]
	for _, g := range groups {
		a, ok := was[g.id]
		if !ok || !slices.Contains(g.removed, a.Version) {
			continue
		}
		if cur, ok := b.arts[g.id]; !ok || cur.Version != a.Version {
			continue
		}
		delete(b.arts, g.id)
		n.env.Stats.Add(0, 0, 1)
		k, e, found, err := kc.newest(g.id)
		if err != nil {
			return err
		}
		if found {
			keys, etags = append(keys, k), append(etags, e)
		}
	}
	err = remote.Each(ctx, len(keys), 8, func(ctx context.Context, i int) error {
		return n.fetch(ctx, n.env, n.bucket, keys[i], etags[i], b)
	})
	if err != nil {
		return err
	}
	for _, g := range groups {
		a, had := was[g.id]
		cur, has := b.arts[g.id]
		switch {
		case has && (!had || cur != a):
			err = log.add(g.id, entry{version: cur.Version, shard: cur.Shard}.rest())
		case had && !has:
			err = log.add(g.id, entry{}.rest())
		default:
			continue
		}
		if err != nil {
			return err
		}
		n.changed++
	}
	return nil
}

// groupReader reads the changed and the removed keys a PMCID at a time.
type groupReader struct {
	changed, removed *lineReader
	started          bool
	hasC, hasR       bool
	// reject counts a changed key that is not a metadata key.
	reject func()
}

func (r *groupReader) next() (group, bool, error) {
	var err error
	if !r.started {
		r.started = true
		if r.hasC, err = r.advance(r.changed, true); err == nil {
			r.hasR, err = r.advance(r.removed, false)
		}
		if err != nil {
			return group{}, false, err
		}
	}
	if !r.hasC && !r.hasR {
		return group{}, false, nil
	}
	var g group
	cid, _, _ := parseKey(string(firstField(r.changed.cur)))
	rid, _, _ := parseKey(string(firstField(r.removed.cur)))
	switch {
	case !r.hasR || (r.hasC && cid < rid):
		g.id = cid
	default:
		g.id = rid
	}
	for r.hasC {
		k, e := split(r.changed.cur)
		id, _, _ := parseKey(string(k))
		if id != g.id {
			break
		}
		g.keys, g.etags = append(g.keys, string(k)), append(g.etags, string(e))
		if r.hasC, err = r.advance(r.changed, true); err != nil {
			return g, false, err
		}
	}
	for r.hasR {
		id, v, _ := parseKey(string(firstField(r.removed.cur)))
		if id != g.id {
			break
		}
		g.removed = append(g.removed, v)
		if r.hasR, err = r.advance(r.removed, false); err != nil {
			return g, false, err
		}
	}
	return g, true, nil
}

// advance moves l to its next metadata key, skipping (and, for a changed
// key, rejecting) any other key.
func (r *groupReader) advance(l *lineReader, changed bool) (bool, error) {
	for {
		ok, err := l.next()
		if !ok || err != nil {
			return false, err
		}
		if _, _, ok := parseKey(string(firstField(l.cur))); ok {
			return true, nil
		}
		if changed {
			r.reject()
		}
	}
}

func firstField(line []byte) []byte {
	k, _ := split(line)
	return k
}

// shrunk refuses an inventory listing fewer than half the keys of the last
// one applied. The rule holds at every size, without a floor: on a bucket
// of 3 keys, a report of 1 is refused too.
func shrunk(date string, d diff) error {
	if d.Previous > 0 && 2*d.Keys < d.Previous {
		return fmt.Errorf("%w: inventory %s lists %d metadata keys, the last one applied %d; a report listing fewer than half the keys of the last one is refused at any size (nothing fetched, the mirror kept)",
			ErrShrunk, date, d.Keys, d.Previous)
	}
	return nil
}

// migrate turns a checkpoint of the former formats (every key and ETag,
// every article, as JSON maps in state.json) into a keys file and an
// articles file, once.
func migrate(dir string, st *state) error {
	if st.Keys == "" && len(st.ETags) > 0 {
		st.Keys = "keys-migrated.tsv.zst"
		if err := writeKeysFromMap(statePath(dir, st.Keys), st.ETags); err != nil {
			return fmt.Errorf("migrating the checkpoint: %w", err)
		}
	}
	if st.ArticlesFile == "" && len(st.Articles) > 0 {
		st.ArticlesFile = "articles-migrated.tsv.zst"
		if err := writeArticlesFromMap(statePath(dir, st.ArticlesFile), st.Articles); err != nil {
			return fmt.Errorf("migrating the checkpoint: %w", err)
		}
	}
	st.ETags, st.Articles = nil, nil
	return nil
}

// runFile names a state file of a run (never the committed one, prev).
func runFile(kind string, now time.Time, prev string) string {
	name := kind + "-" + now.UTC().Format("20060102T150405Z") + ".tsv.zst"
	if name == prev {
		name = kind + "-" + now.UTC().Format("20060102T150405Z") + "-2.tsv.zst"
	}
	return name
}

func statePath(dir, name string) string {
	if name == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

func intParam(env *remote.Env, name string, def int) int {
	n, err := strconv.Atoi(env.Param(name, strconv.Itoa(def)))
	if err != nil || n < 1 {
		return def
	}
	return n
}

// cleanup removes, once next is committed, what it no longer names: older
// keys, articles and live files, compacted or emptied shards, and the
// downloads that only spared a resumed run its requests.
func cleanup(dir string, next state) {
	for kind, keep := range map[string]string{"keys": next.Keys, "articles": next.ArticlesFile, "live": next.Live} {
		if old, err := filepath.Glob(filepath.Join(dir, kind+"-*.tsv.zst")); err == nil {
			for _, f := range old {
				if filepath.Base(f) != keep {
					os.Remove(f)
				}
			}
		}
	}
	pruneShards(filepath.Join(dir, shardsDir), next.Shards)
	for _, d := range []string{"metadata", "xml", "work"} {
		os.RemoveAll(filepath.Join(dir, d))
	}
}

// fetchArticle fetches one changed metadata file, gates it and fetches the
// article's XML when it passes, recording the outcome in b.
func fetchArticle(ctx context.Context, env *remote.Env, bucket, key, etag string, b *batchArticles) error {
	metaPath := filepath.Join(env.Dir, filepath.FromSlash(key))
	cached, err := env.Client.File(ctx, bucket+key, metaPath, download.FromETag(etag, 0))
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(metaPath)
	if err != nil {
		return err
	}
	var m Metadata
	keyID, keyV, _ := parseKey(key) // the group reader passes only metadata keys
	if err := json.Unmarshal(raw, &m); err != nil || !pmcidRE.MatchString(m.PMCID) || m.PMCID != keyID {
		// The batch holds the key's PMCID only: metadata naming
		// another is not believed.
		env.Stats.Reject("unreadable-metadata")
		env.Logger.Warn("pmc-oa: unreadable metadata", "key", key, "pmcid", m.PMCID, "err", err)
		return nil
	}
	if m.Version == 0 {
		m.Version = keyV
	}
	if m.Version < 1 {
		env.Stats.Reject("unreadable-metadata")
		env.Logger.Warn("pmc-oa: unreadable metadata", "key", key, "version", m.Version)
		return nil
	}
	if reason := gate(env, &m); reason != "" {
		env.Stats.Reject(reason)
		// A retraction, or a licence changed to one not published, takes
		// the article out of the mirror (unless a newer version is there).
		b.mu.Lock()
		if a, ok := b.arts[m.PMCID]; ok && a.Version <= m.Version {
			delete(b.arts, m.PMCID)
			env.Stats.Add(0, 0, 1)
		}
		b.mu.Unlock()
		return nil
	}
	b.mu.Lock()
	have, ok := b.arts[m.PMCID]
	b.mu.Unlock()
	if ok && have.Version > m.Version {
		env.Stats.Reject("older-version")
		return nil
	}
	xmlKey := remote.S3Key(m.XMLURL)
	if xmlKey == "" {
		env.Stats.Reject("no-xml-url")
		return nil
	}
	exp := download.Expect{}
	if u, err := url.Parse(m.XMLURL); err == nil {
		exp.MD5 = strings.ToLower(u.Query().Get("md5"))
	}
	xcached, err := env.Client.File(ctx, bucket+xmlKey, filepath.Join(env.Dir, "xml", member(m.PMCID, m.Version)), exp)
	if err != nil {
		return err
	}
	if cached && xcached {
		env.Stats.Add(0, 1, 0)
	} else {
		env.Stats.Add(1, 0, 0)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if cur, ok := b.arts[m.PMCID]; !ok || cur.Version <= m.Version {
		b.arts[m.PMCID] = article{Version: m.Version}
	}
	return nil
}

// gate returns why an article is not fetched, or "".
func gate(env *remote.Env, m *Metadata) string {
	if env.Param("require", "is_pmc_openaccess") == "is_pmc_openaccess" && !m.IsPMCOpenAccess {
		return "not-open-access"
	}
	if env.Param("skip_retracted", "true") == "true" && m.IsRetracted {
		return "retracted"
	}
	if m.LicenseCode == nil || *m.LicenseCode == "" {
		return "licence:none"
	}
	t, ok := licence.Parse(licence.Evidence{Kind: licence.KindPMCLicenseCode, Value: *m.LicenseCode})
	switch {
	case !ok || !t.Accepted():
		return "licence:" + *m.LicenseCode
	case !slices.Contains(env.Families, t.Family):
		return "licence:excluded-" + string(t.Family)
	}
	return ""
}

// inventory finds the newest inventory report and cuts the (key, ETag)
// pairs of the metadata keys the source includes into sorted runs under
// work. It returns the report's date folder and the runs.
func inventory(ctx context.Context, env *remote.Env, bucket, work string) (string, []string, error) {
	prefix := env.Param("inventory", "inventory-reports/pmc-oa-opendata/metadata/")
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	_, dirs, err := remote.ListS3(ctx, env, bucket, prefix, "/")
	if err != nil {
		return "", nil, fmt.Errorf("inventory listing: %w", err)
	}
	newest := ""
	for _, d := range dirs {
		if m := dateDirRE.FindStringSubmatch(d); m != nil && m[1] > newest {
			newest = m[1]
		}
	}
	if newest == "" {
		return "", nil, fmt.Errorf("%w: no inventory report under %s", remote.ErrUpstream, prefix)
	}
	b, err := env.Client.Bytes(ctx, bucket+prefix+newest+"/manifest.json", 16<<20)
	if err != nil {
		return "", nil, err
	}
	var man inventoryManifest
	if err := json.Unmarshal(b, &man); err != nil || len(man.Files) == 0 {
		return "", nil, fmt.Errorf("%w: inventory manifest %s: %v", remote.ErrUpstream, newest, err)
	}
	if man.FileFormat != "" && man.FileFormat != "CSV" {
		return "", nil, fmt.Errorf("%w: inventory format %q, only CSV is read", remote.ErrUpstream, man.FileFormat)
	}
	schema := strings.Split(man.FileSchema, ",")
	for i := range schema {
		schema[i] = strings.TrimSpace(schema[i])
	}
	keyCol, etagCol := slices.Index(schema, "Key"), slices.Index(schema, "ETag")
	if keyCol < 0 || etagCol < 0 {
		return "", nil, fmt.Errorf("%w: inventory schema %q has no Key or ETag", remote.ErrUpstream, man.FileSchema)
	}
	sorter, err := newRunSorter(work)
	if err != nil {
		return "", nil, err
	}
	for _, f := range man.Files {
		dst := filepath.Join(env.Dir, "inventory", newest, path.Base(f.Key))
		if _, err := env.Client.File(ctx, bucket+f.Key, dst, download.Expect{MD5: strings.ToLower(f.MD5checksum), Size: f.Size}); err != nil {
			return "", nil, err
		}
		if err := readInventory(dst, keyCol, etagCol, &env.Source, sorter.add); err != nil {
			return "", nil, fmt.Errorf("inventory %s: %w", path.Base(f.Key), err)
		}
	}
	if err := sorter.flush(); err != nil {
		return "", nil, err
	}
	// Only the newest report is needed again.
	if ents, err := os.ReadDir(filepath.Join(env.Dir, "inventory")); err == nil {
		for _, e := range ents {
			if e.Name() != newest {
				os.RemoveAll(filepath.Join(env.Dir, "inventory", e.Name()))
			}
		}
	}
	return newest, sorter.runs, nil
}

// readInventory reads one gzip CSV inventory file. S3 Inventory writes
// keys URL-encoded.
func readInventory(file string, keyCol, etagCol int, src *pipelines.Source, add func(key, etag string) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return err
	}
	defer gz.Close()
	cr := csv.NewReader(bufio.NewReaderSize(gz, 1<<20))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(rec) <= max(keyCol, etagCol) {
			continue
		}
		key, err := url.QueryUnescape(rec[keyCol])
		if err != nil {
			key = rec[keyCol]
		}
		if strings.ContainsAny(key, "\t\n") {
			continue // never a metadata key; would break the keys file
		}
		if strings.HasPrefix(key, "metadata/") && remote.Match(src, key, "metadata/PMC*.json") {
			if err := add(key, strings.Trim(rec[etagCol], `"`)); err != nil {
				return err
			}
		}
	}
}
