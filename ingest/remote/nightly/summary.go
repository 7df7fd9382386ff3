package nightly

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/pipelines/run"
	"github.com/openshelf/openshelf/snapshot"
)

// Summary is what a nightly run did. Its JSON form is printed by
// `openshelf ingest -json` for a pipeline with remote sources, and its
// Sources are recorded in the published snapshot's manifest.json under
// "sources".
type Summary struct {
	Pipeline string    `json:"pipeline"`
	Started  time.Time `json:"started"`
	// Now is the run time the snapshot was built for.
	Now time.Time `json:"now"`
	// Resumed is true when the run finished an interrupted one.
	Resumed bool             `json:"resumed,omitempty"`
	Sources []*SourceSummary `json:"sources"`
	// Ingest is the build's summary (nil when no build ran).
	Ingest   *run.Summary `json:"ingest,omitempty"`
	Snapshot string       `json:"snapshot,omitempty"`
	// Unchanged is true when no source changed: nothing was built and
	// Snapshot, the current one, stays.
	Unchanged bool          `json:"unchanged,omitempty"`
	OK        bool          `json:"ok"`
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// SourceSummary is one source's outcome.
type SourceSummary struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	OK   bool   `json:"ok"`
	*remote.Stats
}

// WriteText writes the per-source table and the build's summary.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "nightly %s: %s\n", s.Pipeline, map[bool]string{true: "ok", false: "FAILED"}[s.OK])
	if s.Resumed {
		fmt.Fprintf(&b, "  resumed an interrupted run (%s)\n", s.Now.Format(time.RFC3339))
	}
	for _, src := range s.Sources {
		st := src.Stats
		status := "ok"
		if !src.OK {
			status = "FAILED: " + st.Error
		}
		fmt.Fprintf(&b, "  %-16s %s\n", src.Name, status)
		fmt.Fprintf(&b, "  %-16s fetched %d, skipped %d, removed %d, %.1f MB, %d retries, %d corrupt, %d errors, %s; mirror %d files, cursor %s\n",
			"", st.Fetched, st.Skipped, st.Removed, float64(st.Bytes)/1e6, st.Retries, st.Corrupt, st.Errors,
			st.Duration.Round(time.Millisecond), st.Files, orDash(st.Cursor))
		if len(st.Rejected) > 0 {
			keys := slices.Sorted(maps.Keys(st.Rejected))
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = fmt.Sprintf("%s %d", k, st.Rejected[k])
			}
			fmt.Fprintf(&b, "  %-16s rejected before download: %s\n", "", strings.Join(parts, ", "))
		}
	}
	if s.Unchanged {
		fmt.Fprintf(&b, "  nothing changed upstream: snapshot %s stays current\n", s.Snapshot)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if s.Ingest != nil {
		return s.Ingest.WriteText(w)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// recordInManifest adds the per-source summary to the current snapshot's
// manifest.json as a "sources" member (readers of the manifest ignore
// members they do not know), rewriting the file atomically. Every other
// member is kept byte for byte.
func recordInManifest(dataDir string, sum *Summary) error {
	cur, err := snapshot.Open(dataDir)
	if err != nil {
		return err
	}
	path := filepath.Join(cur.Dir, "manifest.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	src, err := json.Marshal(struct {
		Pipeline string           `json:"pipeline"`
		Resumed  bool             `json:"resumed,omitempty"`
		Sources  []*SourceSummary `json:"sources"`
	}{sum.Pipeline, sum.Resumed, sum.Sources})
	if err != nil {
		return err
	}
	m["nightly"] = src
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return remote.WriteFileAtomic(path, append(out, '\n'))
}
