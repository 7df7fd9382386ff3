package pipelines

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/openshelf/openshelf/licence"
)

// ErrInvalid marks a pipeline definition that cannot be used; the message
// names the file, the source and the field.
var ErrInvalid = errors.New("invalid pipeline")

// SourceKind says where a source's records come from.
type SourceKind string

const (
	// Local reads files and directories on this machine (paths).
	Local SourceKind = "local"
	// S3Inventory walks an S3 bucket through its daily S3 Inventory
	// reports and fetches the objects that changed (PMC Cloud Service).
	S3Inventory SourceKind = "s3-inventory"
	// FileSequence fetches numbered files from a directory listing in
	// order (PubMed updatefiles over HTTPS).
	FileSequence SourceKind = "file-sequence"
	// S3Partitions fetches date partitions of an S3 prefix
	// (OpenAlex updated_date=YYYY-MM-DD/part_NNN.gz).
	S3Partitions SourceKind = "s3-partitions"
	// RESTCursor pages a REST API with a date filter and a deep-paging
	// cursor (Crossref /works?filter=from-index-date:...&cursor=*).
	RESTCursor SourceKind = "rest-cursor"
)

// Kinds lists the source kinds in documentation order.
var Kinds = []SourceKind{Local, S3Inventory, FileSequence, S3Partitions, RESTCursor}

// Remote reports whether the kind fetches over the network.
func (k SourceKind) Remote() bool { return k != Local }

// CursorKind says how a remote source remembers where the last run stopped.
type CursorKind string

const (
	CursorInventoryETag CursorKind = "inventory-etag" // (key, ETag) pairs of the last inventory read
	CursorSequence      CursorKind = "sequence"       // last file number applied
	CursorPartitionDate CursorKind = "partition-date" // newest partition date read
	CursorIndexDate     CursorKind = "index-date"     // newest index/update date requested
)

// Formats a source may declare; "auto" (the default) detects from content.
var Formats = []string{"auto", "jats", "jats-package", "pubmed", "openalex", "crossref"}

// Pipeline is one parsed pipeline definition (pipelines/*.toml).
type Pipeline struct {
	// Name is a slug naming the pipeline in logs and the manifest.
	Name        string `toml:"name"`
	Description string `toml:"description"`
	// Schedule is when a scheduler should start the run, as a five-field
	// cron expression in UTC ("30 2 * * *"); empty means on demand. The
	// ingest command does not schedule anything itself.
	Schedule string `toml:"schedule"`
	// Licences restricts the accepted licence families (CC0, PDM, CC-BY,
	// CC-BY-SA); empty means all four. It can only narrow the licence
	// rules, never widen them.
	Licences []licence.Family `toml:"licences"`
	Sources  []Source         `toml:"source"`

	// File is the definition's path and Dir its directory, against which
	// relative local paths are resolved.
	File string `toml:"-"`
	Dir  string `toml:"-"`
}

// Source is one input of a pipeline.
type Source struct {
	Name string     `toml:"name"`
	Kind SourceKind `toml:"kind"`
	// Format is the expected format, or "auto" (default) to detect each
	// file from its content. A declared format is checked, not trusted:
	// files of another format are reported and skipped.
	Format string `toml:"format"`
	// Enabled defaults to true; a disabled source is listed but not run.
	Enabled *bool `toml:"enabled"`

	// Paths (local) are files or directories, relative to the pipeline
	// file's directory unless absolute.
	Paths []string `toml:"paths"`

	// URL (remote) is the base: s3://bucket/prefix/ or https://host/path/.
	URL string `toml:"url"`
	// Include and Exclude are glob patterns (path.Match) on the remote
	// object or file names.
	Include []string `toml:"include"`
	Exclude []string `toml:"exclude"`
	// Cursor says how the delta is tracked between runs.
	Cursor *Cursor `toml:"cursor"`
	// Schedule overrides the pipeline's schedule for this source (e.g.
	// the quarterly OpenAlex snapshot in a nightly pipeline).
	Schedule string `toml:"schedule"`
	// Licences is a fetch-time pre-filter for remote sources that state a
	// licence before download (PMC license_code, Crossref license.url):
	// records claiming another family are not fetched. It must be a subset
	// of the pipeline's Licences. The licence rules still decide every
	// record that is fetched.
	Licences []licence.Family `toml:"licences"`
	// Params are kind-specific settings (region, mailto, rows, filter...).
	Params map[string]string `toml:"params"`
}

// Cursor is the delta state of a remote source.
type Cursor struct {
	Kind CursorKind `toml:"kind"`
	// Start is the value to begin from when no state exists yet: a date
	// (2026-01-01), a file name or number (pubmed26n1275).
	Start string `toml:"start"`
	// Overlap re-reads this much before the saved position, so late
	// arrivals are not missed (Go duration, e.g. "48h").
	Overlap string `toml:"overlap"`
	// State names the file under DATA/state/ that keeps the position.
	State string `toml:"state"`
}

// IsEnabled reports whether the source runs.
func (s *Source) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// Load reads and validates a pipeline definition.
func Load(path string) (*Pipeline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return Parse(b, abs)
}

// Parse parses and validates a definition read from file (used to resolve
// relative paths and in messages).
func Parse(data []byte, file string) (*Pipeline, error) {
	p := &Pipeline{File: file, Dir: filepath.Dir(file)}
	md, err := toml.Decode(string(data), p)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %s: line %d: %s", ErrInvalid, file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, file, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("%w: %s: unknown keys %s", ErrInvalid, file, strings.Join(keys, ", "))
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, file, err)
	}
	return p, nil
}

var (
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	cronRE = regexp.MustCompile(`^[0-9*/,\-]+$`)
)

func (p *Pipeline) validate() error {
	if !nameRE.MatchString(p.Name) {
		return fmt.Errorf("name %q: want a slug (lower-case letters, digits, '-')", p.Name)
	}
	if err := checkSchedule(p.Schedule); err != nil {
		return fmt.Errorf("schedule: %v", err)
	}
	if err := checkFamilies(p.Licences); err != nil {
		return fmt.Errorf("licences: %v", err)
	}
	if len(p.Sources) == 0 {
		return errors.New("no [[source]]")
	}
	seen := map[string]bool{}
	for i := range p.Sources {
		s := &p.Sources[i]
		if err := s.validate(p.Licences); err != nil {
			name := s.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i+1)
			}
			return fmt.Errorf("source %s: %v", name, err)
		}
		if seen[s.Name] {
			return fmt.Errorf("source %s: defined twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func (s *Source) validate(pipelineFamilies []licence.Family) error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("name %q: want a slug (lower-case letters, digits, '-')", s.Name)
	}
	if s.Format == "" {
		s.Format = "auto"
	}
	if !slices.Contains(Formats, s.Format) {
		return fmt.Errorf("format %q: want one of %s", s.Format, strings.Join(Formats, ", "))
	}
	if err := checkSchedule(s.Schedule); err != nil {
		return fmt.Errorf("schedule: %v", err)
	}
	if err := checkFamilies(s.Licences); err != nil {
		return fmt.Errorf("licences: %v", err)
	}
	if len(pipelineFamilies) > 0 {
		for _, f := range s.Licences {
			if !slices.Contains(pipelineFamilies, f) {
				return fmt.Errorf("licences: %s is not among the pipeline's licences %v (a source can only narrow them)", f, pipelineFamilies)
			}
		}
	}
	for _, g := range append(append([]string(nil), s.Include...), s.Exclude...) {
		if _, err := filepath.Match(g, ""); err != nil {
			return fmt.Errorf("glob %q: %v", g, err)
		}
	}
	switch {
	case s.Kind == Local:
		if len(s.Paths) == 0 {
			return errors.New(`kind "local" needs paths`)
		}
		for _, p := range s.Paths {
			if strings.TrimSpace(p) == "" {
				return errors.New("empty path")
			}
		}
		if s.URL != "" || s.Cursor != nil {
			return errors.New(`kind "local" takes paths, not url or cursor`)
		}
	case slices.Contains(Kinds, s.Kind):
		if len(s.Paths) > 0 {
			return fmt.Errorf("kind %q takes url, not paths", s.Kind)
		}
		u, err := url.Parse(s.URL)
		if err != nil || s.URL == "" || u.Host == "" || (u.Scheme != "https" && u.Scheme != "s3" && u.Scheme != "http") {
			return fmt.Errorf("url %q: want s3://bucket/prefix or https://host/path", s.URL)
		}
		if s.Cursor == nil {
			return fmt.Errorf("kind %q needs a [source.cursor] to track deltas", s.Kind)
		}
		if err := s.Cursor.validate(s.Kind); err != nil {
			return fmt.Errorf("cursor: %v", err)
		}
	case s.Kind == "":
		return fmt.Errorf("kind missing: want one of %s", kindList())
	default:
		return fmt.Errorf("kind %q: want one of %s", s.Kind, kindList())
	}
	return nil
}

// cursorKinds says which cursor fits which source kind.
var cursorKinds = map[SourceKind]CursorKind{
	S3Inventory:  CursorInventoryETag,
	FileSequence: CursorSequence,
	S3Partitions: CursorPartitionDate,
	RESTCursor:   CursorIndexDate,
}

func (c *Cursor) validate(k SourceKind) error {
	if want := cursorKinds[k]; c.Kind != want {
		return fmt.Errorf("kind %q: a %s source uses cursor kind %q", c.Kind, k, want)
	}
	if c.Overlap != "" {
		if d, err := time.ParseDuration(c.Overlap); err != nil || d < 0 {
			return fmt.Errorf("overlap %q: want a duration such as \"48h\"", c.Overlap)
		}
	}
	if (c.Kind == CursorPartitionDate || c.Kind == CursorIndexDate) && c.Start != "" {
		if _, err := time.Parse(time.DateOnly, c.Start); err != nil {
			return fmt.Errorf("start %q: want a date YYYY-MM-DD", c.Start)
		}
	}
	if c.State != "" && !nameRE.MatchString(c.State) {
		return fmt.Errorf("state %q: want a slug (a file name under DATA/state/)", c.State)
	}
	return nil
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func checkFamilies(fs []licence.Family) error {
	for _, f := range fs {
		if !slices.Contains(licence.Families, f) {
			return fmt.Errorf("%q is not an accepted family (%v)", f, licence.Families)
		}
	}
	return nil
}

// checkSchedule accepts "" or a five-field cron expression.
func checkSchedule(s string) error {
	if s == "" {
		return nil
	}
	f := strings.Fields(s)
	if len(f) != 5 {
		return fmt.Errorf("%q: want five cron fields (minute hour day month weekday, UTC)", s)
	}
	for _, x := range f {
		if !cronRE.MatchString(x) {
			return fmt.Errorf("%q: field %q is not a cron field", s, x)
		}
	}
	return nil
}

// LocalPaths returns the paths of the enabled local sources, resolved
// against the pipeline file's directory, in definition order.
func (p *Pipeline) LocalPaths() []string {
	var out []string
	for _, s := range p.Sources {
		if s.Kind != Local || !s.IsEnabled() {
			continue
		}
		for _, path := range s.Paths {
			out = append(out, p.Resolve(path))
		}
	}
	return out
}

// Resolve makes a local path absolute against the pipeline's directory.
func (p *Pipeline) Resolve(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.Dir, path)
}

// AcceptedFamilies returns the families the pipeline publishes: its
// Licences, or every family when none is set.
func (p *Pipeline) AcceptedFamilies() []licence.Family {
	if len(p.Licences) == 0 {
		return slices.Clone(licence.Families)
	}
	return slices.Clone(p.Licences)
}
