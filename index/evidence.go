package index

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// The licence receipts (issue 13): one licence_evidence row per piece of
// evidence behind each published document, with where it was read, what
// it was read as, the version it applies to and the input's checksum. This
// file holds all of it; builder.go only opens, writes and closes the table.

// evidenceRow is a row of licence_evidence.parquet (data/README.md).
type evidenceRow struct {
	ID             string     `parquet:"id"`
	Ordinal        int32      `parquet:"ordinal"`
	Decision       string     `parquet:"decision,dict"` // the document's family, e.g. CC-BY
	Source         string     `parquet:"source,dict"`
	Kind           string     `parquet:"kind,dict"`
	Path           string     `parquet:"path"`
	Value          string     `parquet:"value"`
	SPDX           string     `parquet:"spdx,dict"`
	Family         string     `parquet:"family,dict"`
	Restriction    string     `parquet:"restriction,dict"`
	Reading        string     `parquet:"reading,dict"`
	LicenceVersion string     `parquet:"licence_version,dict"`
	AppliesTo      string     `parquet:"applies_to,dict"`
	Start          *time.Time `parquet:"start,optional,timestamp(microsecond)"`
	Input          string     `parquet:"input"`
	InputSHA256    string     `parquet:"input_sha256"`
	ReadAt         *time.Time `parquet:"read_at,optional,timestamp(microsecond)"`
}

// maxReceiptValue caps a receipt's raw value: licence texts are short, and
// a hostile one must not make the table large.
const maxReceiptValue = 4096

func (b *Builder) openReceipts() error {
	var err error
	b.receipts, err = newTable[evidenceRow](b.dir, snapshot.LicenceEvidence+".parquet", 8*b.cfg.RowGroupRows)
	return err
}

// stampInputs fills each evidence's InputSHA256 from the run's inputs
// (evidence carried over from a previous snapshot keeps its own).
func (b *Builder) stampInputs(ev []licence.Evidence) {
	if len(b.cfg.Inputs) == 0 {
		return
	}
	if b.digests == nil {
		b.digests = make(map[string]string, len(b.cfg.Inputs))
		for _, in := range b.cfg.Inputs {
			b.digests[in.Path] = in.SHA256
		}
	}
	for i := range ev {
		e := &ev[i]
		if e.InputSHA256 != "" || e.Origin == "" {
			continue
		}
		file, _, _ := strings.Cut(e.Origin, "!") // "archive!member"
		e.InputSHA256 = b.digests[file]
	}
}

// writeReceipts writes the licence_evidence rows of a published document
// and returns them as the JSON array the paid document answer carries.
func (b *Builder) writeReceipts(d *ingest.Document) (string, error) {
	rs := licence.Receipts(d.Licence)
	for i := range rs {
		r := &rs[i]
		r.Value = truncate(r.Value, maxReceiptValue)
		row := evidenceRow{
			ID: d.ID, Ordinal: int32(min(i, 1<<31-1)), Decision: string(d.Licence.Family),
			Source: clean(string(r.Source)), Kind: clean(string(r.Kind)), Path: clean(r.Path),
			Value: clean(r.Value), SPDX: r.SPDX, Family: string(r.Family),
			Restriction: string(r.Restriction), Reading: r.Reading, LicenceVersion: clean(r.LicenceVersion), AppliesTo: clean(r.AppliesTo),
			Start: timePtr(r.Start), Input: clean(r.Input), InputSHA256: r.InputSHA256, ReadAt: timePtr(r.ReadAt),
		}
		if err := b.receipts.write(row, len(row.Value)+len(row.Path)+len(row.Input)+160); err != nil {
			return "", err
		}
	}
	js, err := json.Marshal(rs)
	if err != nil {
		return "", fmt.Errorf("index: encode receipts: %w", err)
	}
	return clean(string(js)), nil
}

// shortEvidence returns at most 100 pieces of ev with values cut to
// maxReceiptValue, for the rejects row of an oversized record.
func shortEvidence(ev []licence.Evidence) []licence.Evidence {
	out := slices.Clone(ev[:min(len(ev), 100)])
	for i := range out {
		out[i].Value = truncate(out[i].Value, maxReceiptValue)
	}
	return out
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// provenanceSink records, for every record a run's readers deliver, which
// input its licence evidence came from and when it was read.
type provenanceSink struct {
	ingest.Sink
	now time.Time
}

func (s provenanceSink) Document(d *ingest.Document) error {
	for i := range d.Licence.Evidence {
		e := &d.Licence.Evidence[i]
		if e.Origin == "" {
			e.Origin = d.Origin
		}
		if e.ReadAt.IsZero() {
			e.ReadAt = s.now.UTC().Truncate(time.Second)
		}
	}
	return s.Sink.Document(d)
}

// withProvenance wraps a feed so its records carry provenance.
func withProvenance(feed Feed, now time.Time) Feed {
	return func(ctx context.Context, sink ingest.Sink) error {
		return feed(ctx, provenanceSink{sink, now})
	}
}
