package specs

// TableFile is the specs table's file in a snapshot directory (see
// data/README.md, "specs.parquet").
const TableFile = "specs.parquet"

// Row is one row of specs.parquet: a statement with its source document
// and the document's rights. The parquet tags are the column names of the
// contract in data/README.md.
type Row struct {
	ID            string   `parquet:"id"`
	Ordinal       int32    `parquet:"ordinal"`
	Quantity      string   `parquet:"quantity,dict"`
	Value         *float64 `parquet:"value,optional"`
	Min           float64  `parquet:"min"`
	Max           float64  `parquet:"max"`
	Uncertainty   float64  `parquet:"uncertainty"`
	Unit          string   `parquet:"unit,dict"`
	SIUnit        string   `parquet:"si_unit,dict"`
	SIValue       *float64 `parquet:"si_value,optional"`
	SIMin         float64  `parquet:"si_min"`
	SIMax         float64  `parquet:"si_max"`
	SIUncertainty float64  `parquet:"si_uncertainty"`
	Subject       string   `parquet:"subject"`
	Family        string   `parquet:"family,dict"`
	FamilyKind    string   `parquet:"family_kind,dict"`
	Text          string   `parquet:"text"`
	Where         string   `parquet:"where,dict"`
	Source        string   `parquet:"source,dict"`
	Table         string   `parquet:"table,dict"`
	RowLabel      string   `parquet:"row"`
	Column        string   `parquet:"column,dict"`
	Title         string   `parquet:"title,dict"`
	Year          int32    `parquet:"year"`
	License       string   `parquet:"license,dict"`
	LicenseURL    string   `parquet:"license_url,dict"`
	Attribution   string   `parquet:"attribution,dict"`
}

// Statement returns the row's statement.
func (r *Row) Statement() Statement {
	s := Statement{Quantity: r.Quantity, Value: r.Value, Min: r.Min, Max: r.Max, Uncertainty: r.Uncertainty,
		Unit: r.Unit, SIUnit: r.SIUnit, SIValue: r.SIValue, SIMin: r.SIMin, SIMax: r.SIMax,
		SIUncertainty: r.SIUncertainty, Subject: r.Subject, Family: r.Family, FamilyKind: r.FamilyKind,
		Text: r.Text, Where: r.Where, Source: r.Source, Table: r.Table, Row: r.RowLabel, Column: r.Column}
	if s.Source == "" {
		s.Source = SourceText // a snapshot written before tables were a source
	}
	return s
}
