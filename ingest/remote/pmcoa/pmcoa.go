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
// inventory applied, the checkpoint. An inventory listing fewer than half
// the keys of the last one is refused, at any size (ErrShrunk).
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
	// Shard is the shard under shards/ holding the article.
	Shard string `json:"shard,omitempty"`
	// File is the article's own file under xml/: only between its
	// download and its packing, or in a mirror written before shards.
	File string `json:"file,omitempty"`
}

// state is the committed checkpoint.
type state struct {
	// Inventory is the date folder of the last inventory applied.
	Inventory string `json:"inventory,omitempty"`
	// Keys is the keys file (see keys.go) of that inventory: every
	// metadata key with its ETag, sorted.
	Keys string `json:"keys,omitempty"`
	// ETags is the former form of Keys (a JSON map), read once to write
	// the first keys file.
	ETags map[string]string `json:"etags,omitempty"`
	// Articles maps a PMCID ("PMC123") to its newest fetched version.
	Articles map[string]article `json:"articles"`
	// Shards maps each shard of the mirror to its number of members.
	Shards map[string]int `json:"shards,omitempty"`
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

// batch is how many changed keys are fetched between two reads of the
// changed-keys file.
const batch = 4096

// Fetch implements remote.Adapter.
func (Adapter) Fetch(ctx context.Context, env *remote.Env) (*remote.Result, error) {
	st := state{Articles: map[string]article{}}
	if _, err := remote.LoadJSON(filepath.Join(env.Dir, remote.StateFile), &st); err != nil {
		return nil, err
	}
	if err := migrate(env.Dir, &st); err != nil {
		return nil, err
	}
	bucket := remote.BucketBase(env)
	next, d, withdrawn, err := diffInventory(ctx, env, bucket, &st)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	if err := fetchChanged(ctx, env, bucket, d.Changed, &mu, &next); err != nil {
		return nil, err
	}
	// A withdrawn version leaves unless a newer one arrived tonight.
	gone := map[string]bool{}
	for id, v := range withdrawn {
		if a, ok := next.Articles[id]; ok && a.Version == v {
			delete(next.Articles, id)
			gone[id] = true
			env.Stats.Add(0, 0, 1)
		}
	}
	if err := replaceWithdrawn(ctx, env, bucket, gone, keysPath(env.Dir, next.Keys), &mu, &next); err != nil {
		return nil, err
	}
	err = pack(packEnv{dir: filepath.Join(env.Dir, shardsDir), xmlDir: filepath.Join(env.Dir, "xml"), now: env.Now,
		shardArticles: intParam(env, "shard_articles", defaultShardArticles),
		compress:      env.Param("shard_compression", "zstd") != "none"}, st.Shards, &next)
	if err != nil {
		return nil, fmt.Errorf("packing the mirror: %w", err)
	}
	shards := slices.Sorted(maps.Keys(next.Shards))
	files := make([]string, len(shards))
	for i, s := range shards {
		files[i] = filepath.Join(env.Dir, shardsDir, s)
	}
	env.Stats.Cursor = next.Inventory
	return &remote.Result{
		Files:   files,
		Format:  "jats-package",
		Filter:  liveFilter(filepath.Join(env.Dir, shardsDir), next.Articles),
		State:   next,
		Changed: !maps.Equal(st.Articles, next.Articles),
		Cleanup: func() { cleanup(env.Dir, next) },
	}, nil
}

// diffInventory reads the newest inventory and diffs it against the
// checkpoint st on disk. It returns the next state (the new inventory and
// keys file, st's articles), the diff, and the articles whose mirrored
// version the inventory no longer lists (PMCID to version). A shrunk
// inventory is refused.
func diffInventory(ctx context.Context, env *remote.Env, bucket string, st *state) (state, diff, map[string]int, error) {
	work := filepath.Join(env.Dir, "work")
	if err := os.RemoveAll(work); err != nil {
		return state{}, diff{}, nil, err
	}
	date, runs, err := inventory(ctx, env, bucket, work)
	if err != nil {
		return state{}, diff{}, nil, err
	}
	next := state{Inventory: date, Keys: keysName(env.Now, st.Keys), Articles: maps.Clone(st.Articles)}
	withdrawn := map[string]int{}
	d, err := diffKeys(runs, keysPath(env.Dir, st.Keys), keysPath(env.Dir, next.Keys), filepath.Join(work, "changed"), func(key string) {
		id, v := keyVersion(key)
		if a, ok := st.Articles[id]; ok && a.Version == v {
			withdrawn[id] = v
		}
	})
	if err == nil {
		err = shrunk(date, d)
	}
	if err != nil {
		os.Remove(keysPath(env.Dir, next.Keys))
		return state{}, diff{}, nil, err
	}
	env.Stats.Add(0, d.Keys-d.Count, 0)
	env.Logger.Info("pmc-oa: inventory read", "inventory", date, "keys", d.Keys, "changed", d.Count, "previous", st.Inventory)
	if env.Progress != nil {
		env.Progress.Plan(int(d.Count), -1)
	}
	return next, d, withdrawn, nil
}

// fetchChanged fetches the changed keys listed in the file changed, a
// batch at a time.
func fetchChanged(ctx context.Context, env *remote.Env, bucket, changed string, mu *sync.Mutex, next *state) error {
	r, err := openRun(changed)
	if err != nil {
		return err
	}
	return eachBatch(r, batch, func(keys, etags []string) error {
		return remote.Each(ctx, len(keys), 8, func(ctx context.Context, i int) error {
			defer func() {
				if env.Progress != nil {
					env.Progress.Done(1)
				}
			}()
			return fetchArticle(ctx, env, bucket, keys[i], etags[i], mu, next)
		})
	})
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

// migrate turns a checkpoint of the former format (every key and ETag in
// state.json) into a keys file, once.
func migrate(dir string, st *state) error {
	if st.Keys != "" || len(st.ETags) == 0 {
		return nil
	}
	st.Keys = "keys-migrated.tsv.zst"
	if err := writeKeysFromMap(keysPath(dir, st.Keys), st.ETags); err != nil {
		return fmt.Errorf("migrating the checkpoint: %w", err)
	}
	st.ETags = nil
	return nil
}

// keysName names the keys file of a run (never the committed one).
func keysName(now time.Time, prev string) string {
	name := "keys-" + now.UTC().Format("20060102T150405Z") + ".tsv.zst"
	if name == prev {
		name = "keys-" + now.UTC().Format("20060102T150405Z") + "-2.tsv.zst"
	}
	return name
}

func keysPath(dir, name string) string {
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
// keys files, compacted or emptied shards, and the downloads that only
// spared a resumed run its requests.
func cleanup(dir string, next state) {
	if old, err := filepath.Glob(filepath.Join(dir, "keys-*.tsv.zst")); err == nil {
		for _, f := range old {
			if filepath.Base(f) != next.Keys {
				os.Remove(f)
			}
		}
	}
	pruneShards(filepath.Join(dir, shardsDir), next.Shards)
	for _, d := range []string{"metadata", "xml", "work"} {
		os.RemoveAll(filepath.Join(dir, d))
	}
}

// replaceWithdrawn fetches, for each article whose mirrored version was
// withdrawn, the newest version the inventory (the keys file) still lists.
func replaceWithdrawn(ctx context.Context, env *remote.Env, bucket string, withdrawn map[string]bool, keys string, mu *sync.Mutex, next *state) error {
	if len(withdrawn) == 0 {
		return nil
	}
	type best struct {
		key, etag string
		v         int
	}
	found := map[string]best{}
	r, err := openKeys(keys)
	if err != nil {
		return err
	}
	err = eachBatch(r, batch, func(keys, etags []string) error {
		for i, k := range keys {
			id, v := keyVersion(k)
			if b, ok := found[id]; withdrawn[id] && (!ok || v > b.v) {
				found[id] = best{k, etags[i], v}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(found)) {
		if err := fetchArticle(ctx, env, bucket, found[id].key, found[id].etag, mu, next); err != nil {
			return err
		}
	}
	return nil
}

// keyVersion splits metadata/PMC123.2.json into PMC123 and 2.
func keyVersion(key string) (string, int) {
	base := strings.TrimSuffix(path.Base(key), ".json")
	id, v, _ := strings.Cut(base, ".")
	n, _ := strconv.Atoi(v)
	return id, n
}

// fetchArticle fetches one changed metadata file, gates it and fetches the
// article's XML when it passes.
func fetchArticle(ctx context.Context, env *remote.Env, bucket, key, etag string, mu *sync.Mutex, next *state) error {
	metaPath := filepath.Join(env.Dir, filepath.FromSlash(key))
	cached, err := env.Client.File(ctx, bucket+key, metaPath, download.FromETag(etag, 0))
	if err != nil {
		return err
	}
	b, err := os.ReadFile(metaPath)
	if err != nil {
		return err
	}
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil || !pmcidRE.MatchString(m.PMCID) {
		env.Stats.Reject("unreadable-metadata")
		env.Logger.Warn("pmc-oa: unreadable metadata", "key", key, "err", err)
		return nil
	}
	if m.Version == 0 {
		_, m.Version = keyVersion(key)
	}
	if reason := gate(env, &m); reason != "" {
		env.Stats.Reject(reason)
		// A retraction, or a licence changed to one not published, takes
		// the article out of the mirror (unless a newer version is there).
		mu.Lock()
		if a, ok := next.Articles[m.PMCID]; ok && a.Version <= m.Version {
			delete(next.Articles, m.PMCID)
			env.Stats.Add(0, 0, 1)
		}
		mu.Unlock()
		return nil
	}
	mu.Lock()
	have, ok := next.Articles[m.PMCID]
	mu.Unlock()
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
	file := fmt.Sprintf("%s.%d.xml", m.PMCID, m.Version)
	xcached, err := env.Client.File(ctx, bucket+xmlKey, filepath.Join(env.Dir, "xml", file), exp)
	if err != nil {
		return err
	}
	if cached && xcached {
		env.Stats.Add(0, 1, 0)
	} else {
		env.Stats.Add(1, 0, 0)
	}
	mu.Lock()
	defer mu.Unlock()
	if cur, ok := next.Articles[m.PMCID]; !ok || cur.Version <= m.Version {
		next.Articles[m.PMCID] = article{Version: m.Version, File: file}
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
