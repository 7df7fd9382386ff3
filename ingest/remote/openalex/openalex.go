// Package openalex is the nightly adapter for the OpenAlex works snapshot
// (kind "s3-partitions"). It reads the snapshot's manifest, fetches the
// parts of the updated_date partitions newer than the cursor, verified by
// the size the manifest gives, and then the merged-id lists
// (params.merged_ids, an S3 prefix of merge_date,id,merge_into_id CSV
// files, gzip-compressed) it has not read.
//
// Layouts (params.layout), as OpenAlex's "Snapshot data format" page
// (https://developers.openalex.org/download/snapshot-format, read
// 2026-12-07) describes them:
//
//   - "jsonl" (the default, the 2026 layout): two complete copies of the
//     snapshot under data/jsonl/ (gzip JSON Lines) and data/parquet/
//     (snappy Parquet), one folder per entity, part files part_0000… of up
//     to 400,000 records under updated_date= partitions, and one combined
//     manifest.json per format listing every entity's files. The source's
//     url is the works folder (s3://openalex/data/jsonl/works/); the
//     manifest is the manifest.json of its parent folder, and only its
//     entries under the works folder are read. The page names the combined
//     manifest without listing its fields: it is read in the Redshift
//     manifest form of the per-entity manifests before it ({"entries":
//     [{"url": "s3://...", "meta": {"content_length": N, "record_count":
//     M}}]}).
//
//   - "legacy": the pre-2026 flat layout, which the page says is kept under
//     legacy-data/ with the merged_ids/ folder: the url is a works folder
//     holding a Redshift manifest named "manifest" (s3://openalex/
//     legacy-data/works/manifest), for mirrors of older releases.
//
//   - "parquet": the 2026 layout's Parquet copy (url s3://openalex/data/
//     parquet/works/, parts part_*.parquet, data/parquet/manifest.json),
//     whose licence columns are read before whole works are decoded
//     (parquet.go).
//
// params.manifest, an s3:// URL, overrides where the manifest is read. The
// merged-id lists live only under legacy-data/merged_ids/ in the current
// layout, which is where the shipped pipeline points params.merged_ids.
//
// Merges are applied by the adapter's filter on every OpenAlex record the
// build reads: a merged-away work's records are dropped and its id becomes
// an alias of the surviving work's document (chains A→B→C resolve to C), so
// a request for the old id finds the survivor.
package openalex

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
)

// Adapter implements remote.Adapter for the OpenAlex snapshot.
type Adapter struct{}

// state is the committed checkpoint.
type state struct {
	// Last is the newest partition date read (YYYY-MM-DD).
	Last string `json:"last,omitempty"`
	// Parts are the mirror's part files (keys), oldest partition first.
	Parts []string `json:"parts"`
	// MergedFiles are the merged-id lists already applied.
	MergedFiles []string `json:"merged_files,omitempty"`
	// Merged maps a merged-away work id (W123) to the work it was merged
	// into.
	Merged map[string]string `json:"merged,omitempty"`
}

// manifest is the Redshift manifest of the snapshot.
type manifest struct {
	Entries []struct {
		URL  string `json:"url"`
		Meta struct {
			ContentLength int64 `json:"content_length"`
			RecordCount   int64 `json:"record_count"`
		} `json:"meta"`
	} `json:"entries"`
}

var dateRE = regexp.MustCompile(`updated_date=(\d{4}-\d{2}-\d{2})/`)

type part struct {
	key, date string
	size      int64
}

// Fetch implements remote.Adapter.
func (Adapter) Fetch(ctx context.Context, env *remote.Env) (*remote.Result, error) {
	var st state
	statePath := filepath.Join(env.Dir, remote.StateFile)
	if _, err := remote.LoadJSON(statePath, &st); err != nil {
		return nil, err
	}
	bucket := remote.BucketBase(env)
	parts, err := newParts(ctx, env, bucket, st)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, p := range parts {
		total += p.size
	}
	env.Logger.Info("openalex: manifest read", "new_parts", len(parts), "bytes", total, "after", st.Last)
	if env.Progress != nil {
		env.Progress.Plan(len(parts), total)
	}
	isParquet := env.Param("layout", "jsonl") == "parquet"
	err = remote.Each(ctx, len(parts), 4, func(ctx context.Context, i int) error {
		defer func() {
			if env.Progress != nil {
				env.Progress.Done(1)
			}
		}()
		p := parts[i]
		dst := filepath.Join(env.Dir, filepath.FromSlash(p.key))
		if isParquet {
			if _, err := os.Stat(dst + parquetSuffix); err == nil {
				env.Stats.Add(0, 1, 0) // gated by a run that did not commit
				return nil
			}
		}
		cached, err := env.Client.File(ctx, bucket+p.key, dst, download.Expect{Size: p.size})
		if err != nil {
			return err
		}
		if cached {
			env.Stats.Add(0, 1, 0)
		} else {
			env.Stats.Add(1, 0, 0)
		}
		if !isParquet {
			return nil
		}
		if err := gateParquet(dst, dst+parquetSuffix, env.Families, env.Stats); err != nil {
			return err
		}
		// Only the gated works are kept.
		return os.Remove(dst)
	})
	if err != nil {
		return nil, err
	}
	next := state{Last: st.Last, Parts: slices.Clone(st.Parts), MergedFiles: slices.Clone(st.MergedFiles), Merged: map[string]string{}}
	for k, v := range st.Merged {
		next.Merged[k] = v
	}
	for _, p := range parts {
		if isParquet {
			p.key += parquetSuffix
		}
		next.Parts = append(next.Parts, p.key)
		next.Last = max(next.Last, p.date)
	}
	if err := mergedIDs(ctx, env, bucket, &next); err != nil {
		return nil, err
	}
	files := make([]string, len(next.Parts))
	for i, k := range next.Parts {
		files[i] = filepath.Join(env.Dir, filepath.FromSlash(k))
	}
	env.Stats.Cursor = next.Last
	return &remote.Result{
		Files:   files,
		Delta:   true,
		New:     files[len(st.Parts):],
		Gone:    mergedNow(st.Merged, next.Merged),
		Format:  "openalex",
		Filter:  filter(next.Merged, env.Stats),
		State:   next,
		Changed: len(parts) > 0 || len(next.MergedFiles) != len(st.MergedFiles),
	}, nil
}

// defaultInclude is the part glob of a source without include globs.
func defaultInclude(env *remote.Env) string {
	if env.Param("layout", "jsonl") == "parquet" {
		return "updated_date=*/part_*.parquet"
	}
	return "updated_date=*/part_*.gz"
}

// manifestKey is the key of the manifest listing the source's parts.
func manifestKey(env *remote.Env) (string, error) {
	if m := env.Param("manifest", ""); m != "" {
		if k := remote.S3Key(m); k != "" {
			return k, nil
		}
		return "", fmt.Errorf("params.manifest %q is not an s3:// URL", m)
	}
	folder := strings.TrimSuffix(remote.S3Key(env.Source.URL), "/")
	switch layout := env.Param("layout", "jsonl"); layout {
	case "jsonl", "parquet":
		// data/jsonl/works/ -> data/jsonl/manifest.json
		return path.Join(path.Dir(folder), "manifest.json"), nil
	case "legacy":
		return path.Join(folder, "manifest"), nil
	default:
		return "", fmt.Errorf("params.layout %q: want jsonl, parquet or legacy", layout)
	}
}

// newParts reads the manifest and returns the parts of partitions newer
// than the cursor, oldest first.
func newParts(ctx context.Context, env *remote.Env, bucket string, st state) ([]part, error) {
	prefix := remote.S3Key(env.Source.URL)
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	mkey, err := manifestKey(env)
	if err != nil {
		return nil, err
	}
	b, err := env.Client.Bytes(ctx, bucket+mkey, 256<<20)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mkey, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest: %v", remote.ErrUpstream, err)
	}
	if len(m.Entries) == 0 {
		return nil, fmt.Errorf("%w: manifest lists no files", remote.ErrUpstream)
	}
	after := st.Last
	inclusive := false
	if after == "" && env.Source.Cursor != nil {
		after, inclusive = env.Source.Cursor.Start, true
	}
	var parts []part
	for _, e := range m.Entries {
		key := remote.S3Key(e.URL)
		d := dateRE.FindStringSubmatch(key + "/")
		// A combined manifest lists every entity: keep the source's folder.
		if key == "" || d == nil || !strings.HasPrefix(key, prefix) || !remote.Match(&env.Source, key, defaultInclude(env)) {
			continue
		}
		if d[1] > after || (inclusive && d[1] == after) {
			parts = append(parts, part{key: key, date: d[1], size: e.Meta.ContentLength})
		}
	}
	slices.SortFunc(parts, func(a, b part) int { return strings.Compare(a.key, b.key) })
	return parts, nil
}

// mergedIDs fetches the merged-id lists not applied yet into next.
func mergedIDs(ctx context.Context, env *remote.Env, bucket string, next *state) error {
	src := env.Param("merged_ids", "")
	if src == "" {
		return nil
	}
	prefix := remote.S3Key(src)
	objs, _, err := remote.ListS3(ctx, env, bucket, prefix, "")
	if err != nil {
		return fmt.Errorf("merged ids: %w", err)
	}
	slices.SortFunc(objs, func(a, b remote.Object) int { return strings.Compare(a.Key, b.Key) })
	for _, o := range objs {
		if !strings.HasSuffix(o.Key, ".csv.gz") && !strings.HasSuffix(o.Key, ".csv") {
			continue
		}
		if slices.Contains(next.MergedFiles, o.Key) {
			continue
		}
		dst := filepath.Join(env.Dir, filepath.FromSlash(o.Key))
		cached, err := env.Client.File(ctx, bucket+o.Key, dst, download.FromETag(o.ETag, o.Size))
		if err != nil {
			return err
		}
		if cached {
			env.Stats.Add(0, 1, 0)
		} else {
			env.Stats.Add(1, 0, 0)
		}
		if err := readMerged(dst, next.Merged); err != nil {
			return fmt.Errorf("%s: %w", path.Base(o.Key), err)
		}
		next.MergedFiles = append(next.MergedFiles, o.Key)
	}
	return nil
}

// mergedNow returns the ids of the works a merge names that before does
// not: the merged-away work and the one it went into.
func mergedNow(before, now map[string]string) []string {
	var out []string
	for from, into := range now {
		if before[from] != into {
			out = append(out, projectID(from), projectID(into))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func projectID(w string) string { return "oa-w" + strings.TrimPrefix(strings.ToLower(w), "w") }

// readMerged reads a merged-id list (header merge_date,id,merge_into_id).
func readMerged(file string, into map[string]string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(file, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer gz.Close()
		r = gz
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%w: no header: %v", remote.ErrUpstream, err)
	}
	idCol, intoCol := slices.Index(head, "id"), slices.Index(head, "merge_into_id")
	if idCol < 0 || intoCol < 0 {
		return fmt.Errorf("%w: header %v has no id and merge_into_id", remote.ErrUpstream, head)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(rec) <= max(idCol, intoCol) {
			continue
		}
		from, to := workID(rec[idCol]), workID(rec[intoCol])
		if from != "" && to != "" && from != to {
			into[from] = to
		}
	}
}

// workID normalises W123, w123 or https://openalex.org/W123 to W123.
func workID(s string) string {
	s = strings.TrimSpace(s)
	s = s[strings.LastIndex(s, "/")+1:]
	s = strings.ToUpper(s)
	if len(s) < 2 || s[0] != 'W' {
		return ""
	}
	return s
}

// filter drops the records of merged-away works and adds their ids as
// aliases of the survivor's records.
func filter(merged map[string]string, stats *remote.Stats) func(string, *ingest.Document) bool {
	if len(merged) == 0 {
		return nil
	}
	survivor := func(w string) string {
		for range 64 { // a cycle in the lists must not hang the run
			to, ok := merged[w]
			if !ok {
				return w
			}
			w = to
		}
		return w
	}
	aliases := map[string][]string{}
	for from := range merged {
		s := survivor(from)
		aliases[s] = append(aliases[s], projectID(from))
	}
	for _, a := range aliases {
		slices.Sort(a)
	}
	return func(_ string, d *ingest.Document) bool {
		if d.OpenAlex == "" || !slices.Contains(d.Sources, "openalex") {
			return true
		}
		w := workID(d.OpenAlex)
		if _, gone := merged[w]; gone {
			stats.Add(0, 0, 1)
			return false
		}
		if a := aliases[w]; len(a) > 0 {
			// The reader may reuse d.Aliases' array: never append in place.
			d.Aliases = append(slices.Clip(d.Aliases), a...)
		}
		return true
	}
}
