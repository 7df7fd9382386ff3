package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

func init() {
	register(command{
		name:    "explain",
		summary: "show the licence receipt of a document, or why a record was rejected",
		run:     runExplain,
	})
}

const explainSynopsis = `openshelf explain [flags] ID

Prints, for a document of the current snapshot, the licence it is published
under and every piece of evidence behind that decision (source, field path,
raw value, licence read, version it applies to, input file, its SHA-256 and
when it was read). For a rejected record it prints the reason, the detail
and the same evidence. ID is a project id (pmc-123, doi-..., oa-w..., pmid-...)
or an alias; a bare DOI (10.1371/...), PMC123 or OpenAlex W123 also works.
Exit status 1 when the id is in neither documents nor rejects.`

// explanation is what explain prints; -json prints it as is.
type explanation struct {
	ID        string            `json:"id"`
	Snapshot  string            `json:"snapshot"`
	Published bool              `json:"published"`
	License   string            `json:"license,omitempty"`
	Name      string            `json:"license_name,omitempty"`
	URL       string            `json:"license_url,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Detail    string            `json:"detail,omitempty"`
	Input     string            `json:"input,omitempty"`
	Evidence  []licence.Receipt `json:"license_evidence"`
}

var errNotInSnapshot = errors.New("not in the current snapshot's documents or rejects")

func runExplain(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	data := fs.String("data", "data", "data `directory` holding current and snapshots/")
	asJSON := fs.Bool("json", false, "print the explanation as JSON")
	fs.Usage = flagUsage(fs, e.stderr, explainSynopsis)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := applyEnv(fs, e.getenv); err != nil {
		fmt.Fprintln(e.stderr, "openshelf explain:", err)
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "openshelf explain: give exactly one ID")
		return exitUsage
	}
	x, err := explain(ctx, *data, fs.Arg(0))
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf explain:", err)
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(x); err != nil {
			return exitFailure
		}
		return exitOK
	}
	x.writeText(e.stdout)
	return exitOK
}

// candidates turns what an operator typed into the ids it may stand for.
func candidates(id string) []string {
	id = strings.TrimSpace(id)
	out := []string{id, strings.ToLower(id)}
	switch low := strings.ToLower(id); {
	case strings.HasPrefix(low, "10.") || strings.Contains(low, "doi.org/"):
		out = append(out, ingest.DOIID(ingest.NormaliseDOI(id)))
	case strings.HasPrefix(low, "pmc"):
		out = append(out, "pmc-"+ingest.NormalisePMCID(id))
	case strings.HasPrefix(low, "w"):
		out = append(out, "oa-"+low)
	}
	return out
}

// explain looks id up in the current snapshot of dataDir.
func explain(ctx context.Context, dataDir, id string) (*explanation, error) {
	snap, err := snapshot.Open(dataDir)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	x := &explanation{Snapshot: snap.ID}
	for _, c := range candidates(id) {
		var canon, ev string
		err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT d.id, d.license, d.license_name, d.license_url, d.origin, d.licence_evidence
			FROM %s d JOIN %s a ON a.id = d.id WHERE a.alias = ? LIMIT 1`,
			snap.TableSQL(snapshot.Documents), snap.TableSQL(snapshot.Aliases)), c).
			Scan(&canon, &x.License, &x.Name, &x.URL, &x.Input, &ev)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		x.ID, x.Published = canon, true
		return x, x.setEvidence(ev)
	}
	for _, c := range candidates(id) {
		var ev string
		err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT source_id, reason, detail, path, evidence
			FROM read_parquet('%s') WHERE source_id = ? LIMIT 1`, sqlPath(snap.Path(snapshot.Rejects))), c).
			Scan(&x.ID, &x.Reason, &x.Detail, &x.Input, &ev)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return x, x.setEvidence(ev)
	}
	return nil, fmt.Errorf("%s: %w %s", id, errNotInSnapshot, snap.ID)
}

func (x *explanation) setEvidence(js string) error {
	var d licence.Decision
	if js != "" {
		if err := json.Unmarshal([]byte(js), &d.Evidence); err != nil {
			return fmt.Errorf("%s: licence evidence: %w", x.ID, err)
		}
	}
	x.Evidence = licence.Receipts(d)
	return nil
}

// sqlPath quotes a path for a DuckDB string literal.
func sqlPath(p string) string { return strings.ReplaceAll(p, "'", "''") }

func (x *explanation) writeText(w io.Writer) {
	if x.Published {
		fmt.Fprintf(w, "%s: PUBLISHED under %s (%s) in snapshot %s\n", x.ID, x.Name, x.URL, x.Snapshot)
	} else {
		fmt.Fprintf(w, "%s: REJECTED (%s) in snapshot %s\n", x.ID, x.Reason, x.Snapshot)
		fmt.Fprintf(w, "why: %s\n", x.Detail)
	}
	if x.Input != "" {
		fmt.Fprintf(w, "record: %s\n", x.Input)
	}
	if len(x.Evidence) == 0 {
		fmt.Fprintln(w, "evidence: none (the record states no licence)")
		return
	}
	fmt.Fprintf(w, "evidence (%d):\n", len(x.Evidence))
	for i, r := range x.Evidence {
		fmt.Fprintf(w, "%3d. %s %s at %s\n", i+1, r.Source, r.Kind, orDash(r.Path))
		fmt.Fprintf(w, "     value:      %q\n", clip(r.Value, 300))
		read := "nothing recognisable"
		switch {
		case r.Family != "":
			read = string(r.Family)
		case r.Restriction != "":
			read = "restriction: " + string(r.Restriction)
		}
		if r.SPDX != "" {
			read += " [" + r.SPDX + "]"
		}
		if r.Reading != "" {
			read += " (" + r.Reading + ")"
		}
		fmt.Fprintf(w, "     read as:    %s, applies to %s", read, r.AppliesTo)
		if !r.Start.IsZero() {
			fmt.Fprintf(w, ", from %s", r.Start.UTC().Format(time.DateOnly))
		}
		fmt.Fprintln(w)
		if r.Input != "" {
			fmt.Fprintf(w, "     input:      %s sha256:%s read %s\n", r.Input, orDash(r.InputSHA256), r.ReadAt.UTC().Format(time.RFC3339))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}
