package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// SchemaVersion is the version of the on-disk layout this package reads and
// the index package writes. It changes when a table or column is renamed,
// removed or changes meaning; adding a column does not change it.
const SchemaVersion = 1

// Names inside a data directory and a snapshot directory.
const (
	CurrentLink  = "current"       // DATA/current -> snapshots/<id>
	SnapshotsDir = "snapshots"     // DATA/snapshots/<id>/
	ManifestFile = "manifest.json" // in each snapshot
	BundlesDir   = "bundles"       // bundles/<slug>.jsonl.zst
	BundleExt    = ".jsonl.zst"
)

// Table names for [Snapshot.Path]. Each is a Parquet file <name>.parquet
// relative to the snapshot directory; data/README.md documents the columns.
const (
	Documents      = "documents"
	Aliases        = "aliases"
	Fulltext       = "fulltext"
	References     = "references"
	Topics         = "topics"
	Rejects        = "rejects"
	SearchTerms    = "search/terms"
	SearchPostings = "search/postings"
	SearchDocs     = "search/docs"
	SearchFields   = "search/fields"
	// Specs is the specification statements table (package specs).
	Specs = "specs"
	// Citations are the references resolved to archive documents: one
	// row per (citing, cited) pair, sorted by cited then citing id.
	Citations = "citations"
)

// LicenceEvidence holds the licence receipts of published documents.
const LicenceEvidence = "licence_evidence"

// Tables lists every table of a snapshot.
var Tables = []string{
	Documents, Aliases, Fulltext, References, Topics, Rejects, LicenceEvidence,
	SearchTerms, SearchPostings, SearchDocs, SearchFields, Specs, Citations,
}

// Errors reported by Open; test with errors.Is.
var (
	// ErrNoSnapshot means the data directory has no current snapshot yet.
	ErrNoSnapshot = errors.New("snapshot: no current snapshot")
	// ErrSchemaVersion means the snapshot was written with a layout this
	// build cannot read; rebuild it or upgrade the reader.
	ErrSchemaVersion = errors.New("snapshot: unsupported schema version")
	// ErrInvalidManifest means manifest.json is missing or malformed.
	ErrInvalidManifest = errors.New("snapshot: invalid manifest")
	// ErrInvalidSlug means a topic slug is not of the form [a-z0-9-]{1,64}.
	ErrInvalidSlug = errors.New("snapshot: invalid topic slug")
)

// Manifest describes one snapshot: what went in, what came out.
type Manifest struct {
	ID            string    `json:"id"`
	Created       time.Time `json:"created"` // RFC 3339, UTC
	SchemaVersion int       `json:"schema_version"`
	// Previous is the id of the snapshot whose documents this one carries
	// over ("" for a fresh build).
	Previous string `json:"previous,omitempty"`
	// Policy names what decided publication besides the documents'
	// evidence (index.Config.Policy).
	Policy string  `json:"policy,omitempty"`
	Inputs []Input `json:"inputs"`
	Counts Counts  `json:"counts"`
	Files  []File  `json:"files"`
	// Segments lists a segmented snapshot's segments, oldest first
	// (docs/architecture.md, "Incremental snapshots"); empty for a
	// snapshot whose directory holds its one segment's files itself.
	Segments []Segment `json:"segments,omitempty"`
}

// Segment is one segment of a segmented snapshot, in
// segments/segment=<ID>/.
type Segment struct {
	ID string `json:"id"`
	// Documents is how many documents the segment holds, Deleted how
	// many of them this snapshot no longer serves (deletions/<ID>.bin).
	Documents int64 `json:"documents"`
	Deleted   int64 `json:"deleted"`
}

// Input is one file read by the run.
type Input struct {
	Path   string `json:"path"` // path or URL as given to the run
	SHA256 string `json:"sha256,omitempty"`
	Bytes  int64  `json:"bytes"`
	Kind   string `json:"kind,omitempty"` // jats, pubmed, openalex, crossref...
}

// Counts summarises a run.
type Counts struct {
	// Read is the number of records received from the inputs.
	Read int64 `json:"read"`
	// Previous is the number of documents carried over from the previous
	// snapshot.
	Previous int64 `json:"previous"`
	// Accepted documents are published; Rejected are listed in rejects.
	Accepted          int64            `json:"accepted"`
	AcceptedByLicence map[string]int64 `json:"accepted_by_licence"`
	Rejected          int64            `json:"rejected"`
	RejectedByReason  map[string]int64 `json:"rejected_by_reason"`
	// Merged is the number of records folded into a document built from
	// another record of the same work (several sources, versions).
	Merged int64 `json:"merged"`
	// Superseded counts the records replaced by a newer version from the
	// same source (included in Merged).
	Superseded int64 `json:"superseded"`
	// Deleted is the number of documents removed by deletions and
	// retractions.
	Deleted int64 `json:"deleted"`
	// Topics is the number of topics with at least one document.
	Topics int `json:"topics"`
}

// File is one file of the snapshot.
type File struct {
	Name   string `json:"name"` // slash-separated, relative to the snapshot directory
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Snapshot is an opened snapshot directory.
type Snapshot struct {
	// Dir is the absolute, resolved snapshot directory.
	Dir string
	// ID is the snapshot id, also the directory's base name.
	ID       string
	Manifest Manifest
}

var slugPattern = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

// ValidSlug reports whether slug is a topic slug ([a-z0-9-]{1,64}).
func ValidSlug(slug string) bool { return slugPattern.MatchString(slug) }

// Current returns the id of the snapshot DATA/current points to. It reports
// ErrNoSnapshot when there is none.
func Current(dataDir string) (string, error) {
	target, err := os.Readlink(filepath.Join(dataDir, CurrentLink))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w in %s", ErrNoSnapshot, dataDir)
	}
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	id := filepath.Base(target)
	if !ValidID(id) {
		return "", fmt.Errorf("snapshot: %s points to %q, not a snapshot", filepath.Join(dataDir, CurrentLink), target)
	}
	return id, nil
}

// Open opens the snapshot DATA/current points to. The link is resolved once:
// the returned Snapshot keeps its directory when current is switched later.
func Open(dataDir string) (*Snapshot, error) {
	id, err := Current(dataDir)
	if err != nil {
		return nil, err
	}
	return OpenDir(filepath.Join(dataDir, SnapshotsDir, id))
}

// OpenDir opens the snapshot in dir, checking its manifest and schema
// version.
func OpenDir(dir string) (*Snapshot, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	b, err := os.ReadFile(filepath.Join(abs, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidManifest, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidManifest, filepath.Join(abs, ManifestFile), err)
	}
	if m.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%w: %s has schema version %d, this build reads version %d",
			ErrSchemaVersion, abs, m.SchemaVersion, SchemaVersion)
	}
	if m.ID != filepath.Base(abs) {
		return nil, fmt.Errorf("%w: manifest id %q does not match directory %s", ErrInvalidManifest, m.ID, abs)
	}
	return &Snapshot{Dir: abs, ID: m.ID, Manifest: m}, nil
}

// WriteManifest writes m as the manifest.json of the snapshot being
// written in dir, synced to disk: [OpenDir] reads it back. The file must
// not exist yet.
func WriteManifest(dir string, m *Manifest) error {
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("snapshot: manifest: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ManifestFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("snapshot: manifest: %w", err)
	}
	_, err = f.Write(append(js, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("snapshot: manifest: %w", err)
	}
	return nil
}

// Segmented reports whether the snapshot's documents are in segment
// directories (Manifest.Segments) rather than in its own directory.
func (s *Snapshot) Segmented() bool { return len(s.Manifest.Segments) > 0 }

// SegmentDir returns the directory of the segment with the given id.
func (s *Snapshot) SegmentDir(id string) string {
	return filepath.Join(s.Dir, SegmentsDir, "segment="+id)
}

// DeletionsPath returns the path of the deletion file of the segment with
// the given id (which exists only when the segment has deleted documents).
func (s *Snapshot) DeletionsPath(id string) string {
	return filepath.Join(s.Dir, DeletionsDir, id+DeletionsExt)
}

// Path returns the file path of a table (one of [Tables], e.g. Documents or
// SearchPostings), or "" for an unknown name.
func (s *Snapshot) Path(table string) string {
	for _, t := range Tables {
		if t == table {
			return filepath.Join(s.Dir, filepath.FromSlash(table)+".parquet")
		}
	}
	return ""
}

// BundlePath returns the path of a topic's bundle. It does not check that
// the file exists (topics.parquet lists the bundles); it rejects a slug that
// could escape the bundle directory.
func (s *Snapshot) BundlePath(slug string) (string, error) {
	if !ValidSlug(slug) {
		return "", fmt.Errorf("%w: %q", ErrInvalidSlug, slug)
	}
	return filepath.Join(s.Dir, BundlesDir, slug+BundleExt), nil
}
