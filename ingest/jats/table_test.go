package jats

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
)

// article wraps body XML in the smallest article the reader accepts.
func tableArticle(body, floats string) string {
	return `<article><front><article-meta><article-id pub-id-type="pmc">1</article-id>` +
		`<title-group><article-title>T</article-title></title-group></article-meta></front>` +
		`<body>` + body + `</body>` + floats + `</article>`
}

func readTablesOf(t *testing.T, xml string) *ingest.Document {
	t.Helper()
	var sink collect
	rd := &Reader{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}
	if err := rd.Read(context.Background(), strings.NewReader(xml), "t", &sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.docs) != 1 {
		t.Fatalf("%d documents, problems %v", len(sink.docs), sink.problems)
	}
	return sink.docs[0]
}

func TestTables(t *testing.T) {
	tests := []struct {
		name       string
		body, tail string
		want       []ingest.Table
		paragraphs []string // the body's first section's paragraphs, when checked
	}{{
		name: "thead th, rowspan and colspan",
		body: `<sec><title>R</title><table-wrap id="T1"><label>Table 2.</label><caption><title>Properties</title><p>of metals</p></caption>
<table><thead><tr><th rowspan="2">Metal</th><th colspan="2">Thermal</th></tr><tr><th>κ (W/mK)</th><th>T<sub>m</sub> (°C)</th></tr></thead>
<tbody><tr><td rowspan="2">Cu<xref ref-type="table-fn" rid="f1">a</xref></td><td>398</td><td>1085</td></tr><tr><td colspan="2">n.d.</td></tr>
<tr><td>Al</td><td>237</td></tr></tbody></table>
<table-wrap-foot><fn id="f1"><p>Annealed.</p></fn><fn><p>Second note.</p></fn></table-wrap-foot></table-wrap></sec>`,
		want: []ingest.Table{{Label: "Table 2", Caption: "Properties of metals",
			Header:    [][]string{{"Metal", "Thermal", "Thermal"}, {"Metal", "κ (W/mK)", "Tm (°C)"}},
			Rows:      [][]string{{"Cu", "398", "1085"}, {"Cu", "n.d.", "n.d."}, {"Al", "237", ""}},
			Footnotes: []string{"Annealed.", "Second note."}}},
	}, {
		name: "leading th rows without thead, alternatives, tfoot",
		body: `<table-wrap><label>Table 1</label><alternatives><graphic xlink:href="t1"/><table>
<tr><th>Sample</th><th>Band gap [eV]</th></tr><tr><td>GaAs</td><td>1.42</td></tr><tfoot><tr><td>Measured at 300 K.</td></tr></tfoot></table></alternatives></table-wrap>`,
		want: []ingest.Table{{Label: "Table 1", Header: [][]string{{"Sample", "Band gap [eV]"}},
			Rows: [][]string{{"GaAs", "1.42"}}, Footnotes: []string{"Measured at 300 K."}}},
	}, {
		name: "table inside a paragraph, group, floats-group",
		body: `<sec><p>Before <table-wrap-group><table-wrap><label>Table 3</label><table><tbody><tr><td>a</td><td>1</td></tr></tbody></table></table-wrap>` +
			`<table-wrap><label>Table 4</label><table><tbody><tr><td>b</td></tr></tbody></table></table-wrap></table-wrap-group> after.</p></sec>`,
		tail: `<floats-group><fig><caption><p>F</p></caption></fig><table-wrap><label>Table 5</label><table><tbody><tr><td>c</td></tr></tbody></table></table-wrap></floats-group>`,
		want: []ingest.Table{
			{Label: "Table 3", Rows: [][]string{{"a", "1"}}},
			{Label: "Table 4", Rows: [][]string{{"b"}}},
			{Label: "Table 5", Rows: [][]string{{"c"}}},
		},
		paragraphs: []string{"Before after."},
	}, {
		name: "an image of a table is not a table",
		body: `<table-wrap><label>Table 6</label><graphic xlink:href="t6"/></table-wrap>`,
	}, {
		name: "absurd spans are bounded",
		body: `<table-wrap><table><tbody><tr><td colspan="1000000000" rowspan="-3">x</td></tr><tr><td colspan="zz">y</td></tr></tbody></table></table-wrap>`,
		want: func() []ingest.Table {
			row := make([]string, maxTableCols)
			for i := range row {
				row[i] = "x"
			}
			row2 := make([]string, maxTableCols)
			row2[0] = "y"
			return []ingest.Table{{Rows: [][]string{row, row2}}}
		}(),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := readTablesOf(t, tableArticle(tt.body, tt.tail))
			if !reflect.DeepEqual(d.Tables, tt.want) {
				t.Errorf("tables\n got %#v\nwant %#v", d.Tables, tt.want)
			}
			if tt.paragraphs != nil && (len(d.Sections) == 0 || !reflect.DeepEqual(d.Sections[0].Paragraphs, tt.paragraphs)) {
				t.Errorf("sections %#v, want paragraphs %q", d.Sections, tt.paragraphs)
			}
		})
	}
}

func TestColumnHeader(t *testing.T) {
	tb := ingest.Table{Header: [][]string{{"Metal", "Thermal", "Thermal", ""}, {"Metal", "κ (W/mK)", "Tm (°C)", "x"}}}
	for j, want := range []string{"Metal", "Thermal / κ (W/mK)", "Thermal / Tm (°C)", "x", ""} {
		if got := tb.ColumnHeader(j); got != want {
			t.Errorf("ColumnHeader(%d) = %q, want %q", j, got, want)
		}
	}
}

// TestTablesFixtures checks the tables of real articles: rowspans in the
// body (PMC5828200), a two-row <thead> of <td> cells with colspans and
// footnote markers in cells (pntd.0002065).
func TestTablesFixtures(t *testing.T) {
	d := readFile(t, &Reader{}, "pmc/PMC5828200.nxml")
	if len(d.Tables) != 1 {
		t.Fatalf("%d tables", len(d.Tables))
	}
	tb := d.Tables[0]
	if tb.Label != "Table 1" || !strings.HasPrefix(tb.Caption, "Pharmacokinetic analysis") || len(tb.Footnotes) != 1 {
		t.Errorf("label %q caption %q footnotes %q", tb.Label, tb.Caption, tb.Footnotes)
	}
	wantHeader := [][]string{{"Treatment", "Dosage (g/kg)", "Cmax (μg/ml)", "Tmax (min)", "AUC (μg/ml∙min)"}}
	if !reflect.DeepEqual(tb.Header, wantHeader) {
		t.Errorf("header %q", tb.Header)
	}
	if len(tb.Rows) != 6 || !reflect.DeepEqual(tb.Rows[1], []string{"CSP", "0.2", "5.96±0.72", "75±42", "1,250±56"}) ||
		!reflect.DeepEqual(tb.Rows[4], []string{"CSP", "2.5", "12.70±1.01", "55±7", "1,884±57"}) {
		t.Errorf("rows %q", tb.Rows)
	}

	d = readFile(t, &Reader{}, "pmc/pntd.0002065.nxml")
	if len(d.Tables) != 5 {
		t.Fatalf("%d tables", len(d.Tables))
	}
	tb = d.Tables[0]
	if got := tb.ColumnHeader(5); got != "Sheep / Seroprevalence (%)" {
		t.Errorf("column 5 header %q", got)
	}
	if !reflect.DeepEqual(tb.Rows[0], []string{"Maganja da Costa", "92", "39.1", "29.7, 49.5", "11", "54.6", "25.6, 80.7"}) {
		t.Errorf("row 0 %q", tb.Rows[0])
	}
	for _, tb := range d.Tables {
		for _, r := range append(tb.Header, tb.Rows...) {
			if len(r) != len(tb.Rows[0]) {
				t.Errorf("%s: ragged row %q", tb.Label, r)
			}
		}
	}
}

// FuzzTables checks the table reader on arbitrary table markup: no
// panic, and every table is a rectangle within the bounds.
func FuzzTables(f *testing.F) {
	for _, s := range []string{
		`<table><thead><tr><th rowspan="3">a</th><th colspan="2">b</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>`,
		`<alternatives><table><tr><th>x</th></tr><tr><td rowspan="9999">1</td></tr><tr/><tr><td/></tr></table></alternatives>`,
		`<table-wrap-group><table-wrap><table><tbody><tr><td colspan="3">q</td></tr></tbody></table></table-wrap></table-wrap-group>`,
		`<table><tfoot><tr><td>n</td></tr></tfoot><tr><td>1<table-wrap><table><tr><td>in</td></tr></table></table-wrap></td></tr></table>`,
	} {
		f.Add(s)
	}
	rd := &Reader{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, MaxCaptureBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, inner string) {
		xml := tableArticle(`<sec><p>p</p><table-wrap><label>L</label>`+inner+`</table-wrap><p>x`+inner+`</p></sec>`, "")
		var sink collect
		if err := rd.Read(context.Background(), bytes.NewReader([]byte(xml)), "fuzz", &sink); err != nil && !isContentError(err) {
			t.Fatalf("undocumented error: %v", err)
		}
		for _, d := range sink.docs {
			for _, tb := range d.Tables {
				width := -1
				cells := 0
				for _, r := range append(tb.Header, tb.Rows...) {
					if width >= 0 && len(r) != width || len(r) > maxTableCols {
						t.Fatalf("row of %d cells in a table of %d", len(r), width)
					}
					width = len(r)
					cells += len(r)
				}
				if cells > maxTableCells+maxTableCols || len(tb.Rows) > maxTableRows {
					t.Fatalf("%d cells, %d rows", cells, len(tb.Rows))
				}
			}
		}
	})
}
