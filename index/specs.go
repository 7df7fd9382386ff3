package index

import (
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/specs"
)

// The specs table (specs.parquet): specification statements extracted
// from each published document's title, abstract, full text and tables by package
// specs, with the document's rights, in document order. It is written in
// the same pass as the documents; see data/README.md.

func newSpecsTable(dir string, rowGroupRows int) (*table[specs.Row], error) {
	return newTable[specs.Row](dir, specs.TableFile, rowGroupRows)
}

// writeSpecs extracts and writes one document's statements.
func (b *Builder) writeSpecs(d *ingest.Document, row *documentRow) error {
	sts := specs.ExtractDocument(d)
	for i := range sts {
		s := &sts[i]
		r := specs.Row{ID: row.ID, Ordinal: int32(i), Quantity: s.Quantity, Value: s.Value, Min: s.Min, Max: s.Max,
			Uncertainty: s.Uncertainty, Unit: clean(s.Unit), SIUnit: s.SIUnit, SIValue: s.SIValue, SIMin: s.SIMin,
			SIMax: s.SIMax, SIUncertainty: s.SIUncertainty, Subject: clean(s.Subject), Family: s.Family,
			FamilyKind: s.FamilyKind, Text: clean(s.Text), Where: clean(s.Where), Source: s.Source, Table: clean(s.Table),
			RowLabel: clean(s.Row), Column: clean(s.Column), Title: row.Title, Year: row.Year,
			License: row.License, LicenseURL: row.LicenseURL, Attribution: row.Attribution}
		if err := b.specs.write(r, len(r.Text)+len(r.Title)+len(r.Attribution)+len(r.RowLabel)+len(r.Column)+128); err != nil {
			return err
		}
	}
	return nil
}
