package tables

import (
	"slices"
	"strings"
	"testing"
)

func htmlTables(t *testing.T, doc string) []Table {
	t.Helper()
	tabs, err := parseHTMLTables(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []Table
	for _, tb := range tabs {
		if r, ok := htmlTableResult(tb); ok {
			out = append(out, r)
		}
	}
	return out
}

func TestHTMLTableSpans(t *testing.T) {
	doc := `<table>
<caption> Sales  by region </caption>
<thead>
<tr><th rowspan="2">Region</th><th colspan="2">2024</th><th rowspan=2></th></tr>
<tr><th>Q1</th><th>Q2</th></tr>
</thead>
<tbody>
<tr><td rowspan="2">North</td><td>10</td><td>12</td><td>x</td></tr>
<tr><td colspan="2">n/a</td><td>y</td></tr>
<tr><td>South</td><td>7<br>(est.)</td><td rowspan="5">9</td><td>z</td></tr>
</tbody>
<tfoot><tr><td>Total</td><td>17</td><td>21</td><td></td></tr></tfoot>
</table>`
	tabs := htmlTables(t, doc)
	if len(tabs) != 1 {
		t.Fatalf("got %d tables", len(tabs))
	}
	tb := tabs[0]
	if tb.Caption != "Sales by region" || tb.Method != "html" {
		t.Errorf("caption %q method %q", tb.Caption, tb.Method)
	}
	wantCols := []string{"Region", "2024 / Q1", "2024 / Q2", "column_4"}
	if !slices.Equal(tb.Columns, wantCols) {
		t.Errorf("columns %q, want %q", tb.Columns, wantCols)
	}
	wantRows := [][]string{
		{"North", "10", "12", "x"},
		{"North", "n/a", "n/a", "y"},
		{"South", "7 (est.)", "9", "z"},
		// The rowspan=5 stops at the end of its tbody.
		{"Total", "17", "21", ""},
	}
	if len(tb.Rows) != len(wantRows) {
		t.Fatalf("rows %q", tb.Rows)
	}
	for i := range wantRows {
		if !slices.Equal(tb.Rows[i], wantRows[i]) {
			t.Errorf("row %d = %q, want %q", i, tb.Rows[i], wantRows[i])
		}
	}
	if tb.Records[1]["2024 / Q2"] != "n/a" || tb.Records[0]["column_4"] != "x" {
		t.Errorf("records %v", tb.Records)
	}
	if len(tb.HeaderRows) != 2 {
		t.Errorf("header rows %q", tb.HeaderRows)
	}
}

func TestHTMLTableHeaders(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		columns []string
		rows    int
	}{
		{"th first row", `<table><tr><th>Name</th><th>Name</th><th> </th></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>`,
			[]string{"Name", "Name_2", "column_3"}, 1},
		{"no header", `<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>`,
			[]string{"column_1", "column_2"}, 2},
		{"all th keeps a body", `<table><tr><th>a</th></tr><tr><th>b</th></tr></table>`,
			[]string{"a"}, 1},
		{"header name clashes with a generated one", `<table><tr><th>column_2</th><th></th></tr><tr><td>1</td><td>2</td></tr></table>`,
			[]string{"column_2", "column_2_2"}, 1},
		{"ragged rows padded", `<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td>1</td></tr></table>`,
			[]string{"A", "B", "C"}, 1},
		{"empty rows dropped", `<table><tr><th>A</th></tr><tr><td> </td></tr><tr><td>1</td></tr></table>`,
			[]string{"A"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tabs := htmlTables(t, tt.doc)
			if len(tabs) != 1 {
				t.Fatalf("got %d tables", len(tabs))
			}
			if !slices.Equal(tabs[0].Columns, tt.columns) || len(tabs[0].Rows) != tt.rows {
				t.Errorf("columns %q rows %q", tabs[0].Columns, tabs[0].Rows)
			}
			for _, r := range tabs[0].Rows {
				if len(r) != len(tt.columns) {
					t.Errorf("row %q is not %d wide", r, len(tt.columns))
				}
			}
		})
	}
}

func TestHTMLNestedTables(t *testing.T) {
	doc := `<table><tr><th>Outer</th></tr><tr><td>before <table><tr><th>Inner</th></tr><tr><td>deep</td></tr></table> after</td></tr></table>
<table></table>`
	tabs := htmlTables(t, doc)
	if len(tabs) != 2 {
		t.Fatalf("got %d tables, want outer and inner (the empty one is skipped)", len(tabs))
	}
	if tabs[0].Rows[0][0] != "before after" {
		t.Errorf("outer cell %q should leave the nested table out", tabs[0].Rows[0][0])
	}
	if tabs[1].Columns[0] != "Inner" || tabs[1].Rows[0][0] != "deep" {
		t.Errorf("inner %+v", tabs[1])
	}
}

func TestParseSpan(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 1}, {"2", 2}, {" 3 ", 3}, {"2px", 2}, {"x", 1}, {"-1", 1}, {"0", 1},
		{"99999", maxColspan}, {"999999999999999999999999", maxColspan},
	}
	for _, tt := range tests {
		if got := parseSpan(tt.in, 1, 1, maxColspan); got != tt.want {
			t.Errorf("parseSpan(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if got := parseSpan("0", 1, 0, maxRowspan); got != 0 {
		t.Errorf("rowspan 0 = %d, want 0 (to the end of the group)", got)
	}
}

func TestExpandGridCaps(t *testing.T) {
	// A hostile table: a huge colspan and rowspan in a long table.
	var b strings.Builder
	b.WriteString(`<table><tr><td colspan="1000" rowspan="65534">x</td><td colspan=1000>y</td></tr>`)
	for range 400 {
		b.WriteString(`<tr><td colspan="1000">z</td></tr>`)
	}
	b.WriteString(`</table>`)
	tabs, err := parseHTMLTables(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	grid, clipped := expandGrid(tabs[0].rows)
	if !clipped {
		t.Error("expected the grid to be clipped")
	}
	cells := 0
	for _, row := range grid {
		cells += len(row)
		if len(row) > maxGridCols {
			t.Fatalf("row of %d columns", len(row))
		}
	}
	if cells > maxGridCells+maxGridCols*len(grid) {
		t.Errorf("%d cells", cells)
	}
}

// FuzzTableGrid checks that any table markup expands to a rectangular grid
// within the caps, without panicking.
func FuzzTableGrid(f *testing.F) {
	f.Add(`<table><tr><td rowspan=2 colspan=2>a</td><td>b</td></tr><tr><td>c</td></tr></table>`)
	f.Add(`<table><thead><tr><th colspan=3>h</th></tr></thead><tbody><tr><td rowspan=0>x</td></tr><tr><td>y</td></tr></tbody></table>`)
	f.Add(`<table><tr><td colspan=999999>a</td></tr><tr><td rowspan=70000>b</td></tr></table>`)
	f.Add(`<table><caption>c</caption><tr><th></th><th></th></tr><tr><td><table><tr><td>n</td></tr></table></td></tr></table>`)
	f.Fuzz(func(t *testing.T, doc string) {
		tabs, err := parseHTMLTables(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, tb := range tabs {
			grid, _ := expandGrid(tb.rows)
			width := -1
			for _, row := range grid {
				if width >= 0 && len(row) != width {
					t.Fatalf("ragged grid: %d vs %d", len(row), width)
				}
				width = len(row)
				if width > maxGridCols {
					t.Fatalf("grid %d columns wide", width)
				}
			}
			res, ok := htmlTableResult(tb)
			if !ok {
				continue
			}
			seen := map[string]bool{}
			for _, c := range res.Columns {
				if c == "" || seen[c] {
					t.Fatalf("column names not unique and non-empty: %q", res.Columns)
				}
				seen[c] = true
			}
			for _, r := range res.Rows {
				if len(r) != len(res.Columns) {
					t.Fatalf("row %q vs %d columns", r, len(res.Columns))
				}
			}
			if len(res.Records) != len(res.Rows) {
				t.Fatalf("%d records for %d rows", len(res.Records), len(res.Rows))
			}
		}
	})
}
