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
// holds one file per PMCID.
package pmcoa

import (
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

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
)

// Adapter implements remote.Adapter for the PMC OA bucket.
type Adapter struct{}

// article is one PMCID in the mirror.
type article struct {
	Version int    `json:"version"`
	File    string `json:"file"` // under xml/, e.g. PMC123.2.xml
}

// state is the committed checkpoint.
type state struct {
	// Inventory is the date folder of the last inventory applied.
	Inventory string `json:"inventory,omitempty"`
	// ETags maps every metadata key of that inventory to its ETag.
	ETags map[string]string `json:"etags"`
	// Articles maps a PMCID ("PMC123") to its newest fetched version.
	Articles map[string]article `json:"articles"`
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

// Fetch implements remote.Adapter.
func (Adapter) Fetch(ctx context.Context, env *remote.Env) (*remote.Result, error) {
	st := state{ETags: map[string]string{}, Articles: map[string]article{}}
	statePath := filepath.Join(env.Dir, remote.StateFile)
	if _, err := remote.LoadJSON(statePath, &st); err != nil {
		return nil, err
	}
	bucket := remote.BucketBase(env)
	date, etags, err := inventory(ctx, env, bucket)
	if err != nil {
		return nil, err
	}
	// A report that lost most of the bucket is a broken report, not a
	// mass withdrawal: refuse it rather than empty the mirror.
	if len(st.ETags) > 100 && len(etags) < len(st.ETags)/2 {
		return nil, fmt.Errorf("%w: inventory %s lists %d metadata keys, the last one applied %d; refusing a report that lost half the bucket",
			remote.ErrUpstream, date, len(etags), len(st.ETags))
	}
	var changed []string
	for k, e := range etags {
		if st.ETags[k] != e {
			changed = append(changed, k)
		}
	}
	slices.Sort(changed)
	env.Stats.Add(0, int64(len(etags)-len(changed)), 0)
	env.Logger.Info("pmc-oa: inventory read", "inventory", date, "keys", len(etags), "changed", len(changed), "previous", st.Inventory)
	if env.Progress != nil {
		env.Progress.Plan(len(changed), -1)
	}

	next := state{Inventory: date, ETags: etags, Articles: map[string]article{}}
	for k, v := range st.Articles {
		next.Articles[k] = v
	}
	var mu sync.Mutex
	err = remote.Each(ctx, len(changed), 8, func(ctx context.Context, i int) error {
		defer func() {
			if env.Progress != nil {
				env.Progress.Done(1)
			}
		}()
		return fetchArticle(ctx, env, bucket, changed[i], etags[changed[i]], &mu, &next)
	})
	if err != nil {
		return nil, err
	}
	// Keys gone from the inventory: the article version was withdrawn.
	// The newest version still listed, if any, takes its place.
	withdrawn := map[string]bool{}
	for k := range st.ETags {
		if _, ok := etags[k]; ok {
			continue
		}
		id, v := keyVersion(k)
		if a, ok := next.Articles[id]; ok && a.Version == v {
			delete(next.Articles, id)
			withdrawn[id] = true
			env.Stats.Add(0, 0, 1)
		}
	}
	if err := replaceWithdrawn(ctx, env, bucket, withdrawn, etags, &mu, &next); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(next.Articles))
	for id := range next.Articles {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	files := make([]string, len(ids))
	for i, id := range ids {
		files[i] = filepath.Join(env.Dir, "xml", next.Articles[id].File)
	}
	env.Stats.Cursor = date
	return &remote.Result{
		Files:   files,
		Format:  "jats",
		State:   next,
		Changed: !maps.Equal(st.Articles, next.Articles),
		Cleanup: func() {
			prune(filepath.Join(env.Dir, "xml"), next.Articles)
			// The metadata files only spared a resumed run their download.
			os.RemoveAll(filepath.Join(env.Dir, "metadata"))
		},
	}, nil
}

// replaceWithdrawn fetches, for each article whose mirrored version was
// withdrawn, the newest version the inventory still lists.
func replaceWithdrawn(ctx context.Context, env *remote.Env, bucket string, withdrawn map[string]bool, etags map[string]string, mu *sync.Mutex, next *state) error {
	if len(withdrawn) == 0 {
		return nil
	}
	best := map[string]string{} // id -> key of its newest listed version
	for k := range etags {
		id, v := keyVersion(k)
		if !withdrawn[id] {
			continue
		}
		if b, ok := best[id]; ok {
			if _, bv := keyVersion(b); bv >= v {
				continue
			}
		}
		best[id] = k
	}
	for _, k := range best {
		if err := fetchArticle(ctx, env, bucket, k, etags[k], mu, next); err != nil {
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

// inventory finds the newest inventory report and returns its date folder
// and the (key, ETag) pairs of the metadata keys the source includes.
func inventory(ctx context.Context, env *remote.Env, bucket string) (string, map[string]string, error) {
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
	etags := map[string]string{}
	for _, f := range man.Files {
		dst := filepath.Join(env.Dir, "inventory", newest, path.Base(f.Key))
		if _, err := env.Client.File(ctx, bucket+f.Key, dst, download.Expect{MD5: strings.ToLower(f.MD5checksum), Size: f.Size}); err != nil {
			return "", nil, err
		}
		if err := readInventory(dst, keyCol, etagCol, &env.Source, etags); err != nil {
			return "", nil, fmt.Errorf("inventory %s: %w", path.Base(f.Key), err)
		}
	}
	// Only the newest report is needed again.
	if ents, err := os.ReadDir(filepath.Join(env.Dir, "inventory")); err == nil {
		for _, e := range ents {
			if e.Name() != newest {
				os.RemoveAll(filepath.Join(env.Dir, "inventory", e.Name()))
			}
		}
	}
	return newest, etags, nil
}

// readInventory reads one gzip CSV inventory file. S3 Inventory writes
// keys URL-encoded.
func readInventory(file string, keyCol, etagCol int, src *pipelines.Source, into map[string]string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	defer gz.Close()
	cr := csv.NewReader(gz)
	cr.FieldsPerRecord = -1
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
		if strings.HasPrefix(key, "metadata/") && remote.Match(src, key, "metadata/PMC*.json") {
			into[key] = strings.Trim(rec[etagCol], `"`)
		}
	}
}

// prune removes mirror files no article points to (older versions).
func prune(dir string, arts map[string]article) {
	keep := map[string]bool{}
	for _, a := range arts {
		keep[a.File] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !keep[e.Name()] {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
