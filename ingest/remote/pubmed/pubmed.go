// Package pubmed is the nightly adapter for PubMed's numbered update files
// (kind "file-sequence"): https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/
// lists pubmedYYnNNNN.xml.gz, each with a .md5 beside it
// ("MD5(pubmed26n1275.xml.gz)= <hex>"). Files newer than the cursor are
// fetched in order, verified against their MD5 and kept in the mirror. The
// annual baseline (pubmed/baseline/, same names, numbered before the
// update files) is a source of the same kind, listed first.
//
// DeleteCitation is honoured without losing documents licensed elsewhere:
// the merger would drop a whole merged document named by a deletion (the
// PMC article together with its PubMed enrichment), so the adapter instead
// records, for every deleted PMID, the update file that deleted it, and its
// filter drops the PubMed records of that PMID read from earlier files.
// The PMC or Crossref record of the same work stays; only what PubMed
// added (MeSH subjects, the pmid alias) goes. A citation sent again after
// its deletion is kept.
package pubmed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
)

// Adapter implements remote.Adapter for PubMed update files.
type Adapter struct{}

// state is the committed checkpoint (DATA/state/<state>/state.json).
type state struct {
	// Last is the newest file applied, e.g. "pubmed26n1275.xml.gz".
	Last string `json:"last,omitempty"`
	// Files are the mirror's files, in sequence order.
	Files []string `json:"files"`
	// Deleted maps a deleted PMID to the sequence number of the newest
	// file whose DeleteCitation names it.
	Deleted map[string]int64 `json:"deleted,omitempty"`
}

var (
	hrefRE = regexp.MustCompile(`(?i)href="([^"?#]+)"`)
	nameRE = regexp.MustCompile(`pubmed(\d\d)n(\d{4,})\.xml(\.gz)?$`)
	md5RE  = regexp.MustCompile(`\b[0-9a-fA-F]{32}\b`)
)

// Seq returns the position of a PubMed file in the release sequence
// (year, then number), or 0 for a name that is not pubmedYYnNNNN.
func Seq(name string) int64 {
	m := nameRE.FindStringSubmatch(filepath.Base(name))
	if m == nil {
		return 0
	}
	yy, _ := strconv.ParseInt(m[1], 10, 64)
	n, _ := strconv.ParseInt(m[2], 10, 64)
	return yy*1_000_000 + n
}

// Fetch implements remote.Adapter.
func (Adapter) Fetch(ctx context.Context, env *remote.Env) (*remote.Result, error) {
	var st state
	statePath := filepath.Join(env.Dir, remote.StateFile)
	if _, err := remote.LoadJSON(statePath, &st); err != nil {
		return nil, err
	}
	base := remote.HTTPSBase(env)
	listing, err := env.Client.Bytes(ctx, base, 64<<20)
	if err != nil {
		return nil, fmt.Errorf("listing: %w", err)
	}
	from := Seq(st.Last)
	if from == 0 && env.Source.Cursor != nil {
		from = startSeq(env.Source.Cursor.Start)
	}
	var names []string
	seen := map[string]bool{}
	for _, m := range hrefRE.FindAllStringSubmatch(string(listing), -1) {
		name := filepath.Base(m[1])
		if seen[name] || Seq(name) == 0 || !remote.Match(&env.Source, name, "pubmed*n*.xml.gz") {
			continue
		}
		seen[name] = true
		if Seq(name) > from {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return int(Seq(a) - Seq(b)) })
	env.Logger.Info("pubmed: listed", "url", base, "new_files", len(names), "after", st.Last)
	if env.Progress != nil {
		env.Progress.Plan(len(names), -1)
	}

	dir := filepath.Join(env.Dir, "files")
	deleted := make([][]string, len(names))
	err = remote.Each(ctx, len(names), 4, func(ctx context.Context, i int) error {
		name := names[i]
		sum, err := env.Client.Bytes(ctx, base+name+".md5", 4096)
		if err != nil {
			return err
		}
		hex := md5RE.FindString(string(sum))
		if hex == "" {
			return fmt.Errorf("%w: %s.md5 holds no MD5: %.80q", remote.ErrUpstream, name, sum)
		}
		dst := filepath.Join(dir, name)
		cached, err := env.Client.File(ctx, base+name, dst, download.Expect{MD5: strings.ToLower(hex)})
		if err != nil {
			return err
		}
		if cached {
			env.Stats.Add(0, 1, 0)
		} else {
			env.Stats.Add(1, 0, 0)
		}
		deleted[i], err = deletions(ctx, dst)
		if env.Progress != nil {
			env.Progress.Done(1)
		}
		return err
	})
	if err != nil {
		return nil, err
	}

	next := state{Last: st.Last, Files: slices.Clone(st.Files), Deleted: map[string]int64{}}
	for k, v := range st.Deleted {
		next.Deleted[k] = v
	}
	for i, name := range names {
		next.Files = append(next.Files, name)
		next.Last = name
		for _, pmid := range deleted[i] {
			next.Deleted[pmid] = max(next.Deleted[pmid], Seq(name))
		}
	}
	files := make([]string, len(next.Files))
	for i, f := range next.Files {
		files[i] = filepath.Join(dir, f)
	}
	env.Stats.Cursor = next.Last
	var gone []string
	for pmid, seq := range next.Deleted {
		if st.Deleted[pmid] != seq {
			gone = append(gone, "pmid-"+pmid)
		}
	}
	slices.Sort(gone)
	return &remote.Result{
		Files:  files,
		Delta:  true,
		New:    files[len(st.Files):],
		Gone:   gone,
		Format: "pubmed",
		Filter: filter(next.Deleted, env.Stats),
		// Deletions are applied by the filter (see the package comment).
		DropDeletions: true,
		State:         next,
		Changed:       len(names) > 0,
	}, nil
}

// startSeq reads a cursor start: a file name with or without its
// extension ("pubmed26n1275"). Files up to and including it are not
// fetched. A bare number is not enough (numbers restart every year).
func startSeq(s string) int64 {
	if s == "" {
		return 0
	}
	if q := Seq(s); q != 0 {
		return q
	}
	if q := Seq(s + ".xml.gz"); q != 0 {
		return q
	}
	return 0
}

// filter drops PubMed records deleted by a later update file.
func filter(deleted map[string]int64, stats *remote.Stats) func(string, *ingest.Document) bool {
	if len(deleted) == 0 {
		return nil
	}
	return func(file string, d *ingest.Document) bool {
		if d.PMID == "" || !slices.Contains(d.Sources, "pubmed") {
			return true
		}
		at, ok := deleted[d.PMID]
		if ok && at > Seq(file) {
			stats.Add(0, 0, 1)
			return false
		}
		return true
	}
}

// deletions returns the PMIDs a file's DeleteCitation blocks name, read
// with the PubMed reader itself.
func deletions(ctx context.Context, path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c collect
	if _, err := detect.Default().ReadFrom(ctx, f, path, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c.pmids, nil
}

type collect struct{ pmids []string }

func (c *collect) Document(*ingest.Document) error { return nil }
func (c *collect) Problem(ingest.Problem)          {}
func (c *collect) Delete(d ingest.Deletion) error {
	if p, ok := strings.CutPrefix(d.ID, "pmid-"); ok {
		c.pmids = append(c.pmids, p)
	}
	return nil
}
