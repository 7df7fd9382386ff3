package tables

import (
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Caps on what one HTML table may expand to. The HTML standard caps colspan
// at 1000 and rowspan at 65534; a few spans at those limits would still make
// a grid of millions of cells, so the grid itself is capped as well and the
// rest of the table is dropped (Table.Clipped says so).
const (
	maxColspan    = 1000
	maxRowspan    = 65534
	maxGridCols   = 1000
	maxGridCells  = 200_000
	maxCellLength = 10_000 // characters kept per cell
)

// Table is one table found in a page or document.
type Table struct {
	// Index is the table's position in the document, from 0.
	Index int `json:"index"`
	// Page is the PDF page (from 1); 0 for HTML.
	Page int `json:"page,omitempty"`
	// Method is how the table was found: html, ruled (PDF ruling lines form a
	// grid) or aligned (PDF text aligned in columns without lines).
	Method  string `json:"method"`
	Caption string `json:"caption,omitempty"`
	// Columns are the record keys: header texts made unique and non-empty
	// ("column_3" for a blank header, "Name_2" for a repeated one).
	Columns []string `json:"columns"`
	// HeaderRows are the rows recognised as the header, as laid out (spans
	// expanded).
	HeaderRows [][]string `json:"header_rows,omitempty"`
	// Rows are the body rows, every row Columns wide; a cell covered by a
	// rowspan or colspan repeats the spanning cell's text.
	Rows [][]string `json:"rows"`
	// Records are Rows keyed by Columns.
	Records []map[string]string `json:"records"`
	// Clipped is set when the table exceeded the size caps and was cut.
	Clipped bool `json:"clipped,omitempty"`
}

// htmlCell is a td or th as written, before span expansion.
type htmlCell struct {
	text             string
	header           bool // th
	rowspan, colspan int  // as clamped by parseSpan; rowspan 0 means "to the end of the row group"
}

// htmlRow is a tr with the row group it belongs to.
type htmlRow struct {
	cells []htmlCell
	group int  // index of the thead/tbody/tfoot (or implied tbody) holding the row
	thead bool // the row group is a thead
}

// gridCell is one slot of the expanded grid.
type gridCell struct {
	text   string
	header bool
	set    bool
}

// htmlTable is a parsed table element.
type htmlTable struct {
	caption string
	rows    []htmlRow
}

// parseHTMLTables returns every table element of the document, outer tables
// before the tables nested in them, in document order.
func parseHTMLTables(r io.Reader) ([]htmlTable, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, err
	}
	var out []htmlTable
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			out = append(out, readHTMLTable(n))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out, nil
}

// readHTMLTable collects the rows that belong to t itself (not to tables
// nested in its cells). thead rows come first and tfoot rows last, as a
// browser lays them out whatever their position in the source.
func readHTMLTable(t *html.Node) htmlTable {
	var tab htmlTable
	var head, body, foot []htmlRow
	group := 0
	addRows := func(sec *html.Node, dst *[]htmlRow, thead bool) {
		g := group
		group++
		for tr := sec.FirstChild; tr != nil; tr = tr.NextSibling {
			if tr.Type == html.ElementNode && tr.DataAtom == atom.Tr {
				*dst = append(*dst, htmlRow{cells: readHTMLRow(tr), group: g, thead: thead})
			}
		}
	}
	implied := -1 // group of tr elements directly under table
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Caption:
			if tab.caption == "" {
				tab.caption = tableNodeText(c)
			}
		case atom.Thead:
			addRows(c, &head, true)
		case atom.Tbody:
			addRows(c, &body, false)
		case atom.Tfoot:
			addRows(c, &foot, false)
		case atom.Tr:
			// The HTML parser wraps such rows in a tbody; this covers
			// trees built some other way.
			if implied < 0 {
				implied = group
				group++
			}
			body = append(body, htmlRow{cells: readHTMLRow(c), group: implied})
		}
	}
	tab.rows = append(append(head, body...), foot...)
	return tab
}

func readHTMLRow(tr *html.Node) []htmlCell {
	var cells []htmlCell
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
			continue
		}
		cells = append(cells, htmlCell{
			text:    tableNodeText(c),
			header:  c.DataAtom == atom.Th,
			colspan: parseSpan(htmlAttr(c, "colspan"), 1, 1, maxColspan),
			rowspan: parseSpan(htmlAttr(c, "rowspan"), 1, 0, maxRowspan),
		})
	}
	return cells
}

func htmlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// parseSpan reads a colspan or rowspan the way browsers do: leading digits
// of the trimmed value ("2px" is 2), def when missing or unparsable, clamped
// to [lo, hi].
func parseSpan(s string, def, lo, hi int) int {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 {
		return def
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil || n > hi { // overflow counts as too big
		return hi
	}
	return max(n, lo)
}

// nodeText is the text of n with whitespace collapsed, leaving out nested
// tables (they are reported as tables of their own), scripts and styles.
// br and block elements separate words.
func tableNodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Table, atom.Script, atom.Style, atom.Template, atom.Noscript:
				return
			case atom.Br, atom.P, atom.Div, atom.Li:
				b.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if b.Len() > 4*maxCellLength {
				return
			}
			walk(c)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c)
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	if len([]rune(s)) > maxCellLength {
		s = string([]rune(s)[:maxCellLength])
	}
	return s
}

// expandGrid lays the rows out on a rectangular grid, honouring colspan and
// rowspan as the HTML table model does: each cell takes the first free slot
// of its row, a rowspan never reaches past its row group, and rowspan=0
// reaches to the end of the group. Every slot a cell covers gets its text.
// Short rows are padded with empty slots. clipped reports that the caps cut
// the grid.
func expandGrid(rows []htmlRow) (grid [][]gridCell, clipped bool) {
	// groupEnd[i] is the index after the last row of row i's group.
	groupEnd := make([]int, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		if i+1 < len(rows) && rows[i+1].group == rows[i].group {
			groupEnd[i] = groupEnd[i+1]
		} else {
			groupEnd[i] = i + 1
		}
	}
	grid = make([][]gridCell, len(rows))
	cells := 0
	for r, row := range rows {
		col := 0
		for _, c := range row.cells {
			for col < len(grid[r]) && grid[r][col].set {
				col++
			}
			if col >= maxGridCols {
				clipped = true
				break
			}
			span := c.rowspan
			if span == 0 || r+span > groupEnd[r] {
				span = groupEnd[r] - r
			}
			width := min(c.colspan, maxGridCols-col)
			if width < c.colspan {
				clipped = true
			}
			if cells+span*width > maxGridCells {
				clipped = true
				return trimGrid(grid[:r]), clipped
			}
			cells += span * width
			for dr := range span {
				line := grid[r+dr]
				if need := col + width; len(line) < need {
					line = append(line, make([]gridCell, need-len(line))...)
				}
				for dc := range width {
					line[col+dc] = gridCell{text: c.text, header: c.header, set: true}
				}
				grid[r+dr] = line
			}
			col += width
		}
	}
	return trimGrid(grid), clipped
}

// trimGrid pads every row to the widest one.
func trimGrid(grid [][]gridCell) [][]gridCell {
	width := 0
	for _, row := range grid {
		width = max(width, len(row))
	}
	for i, row := range grid {
		if len(row) < width {
			grid[i] = append(row, make([]gridCell, width-len(row))...)
		}
	}
	return grid
}

// htmlTableResult turns a parsed table into the API form: header rows are
// the thead rows, or else the leading rows made only of th cells (all but the
// last row, so a table of th cells still has a body).
func htmlTableResult(t htmlTable) (Table, bool) {
	grid, clipped := expandGrid(t.rows)
	if len(grid) == 0 || len(grid[0]) == 0 {
		return Table{}, false
	}
	nHead := 0
	for nHead < len(t.rows) && t.rows[nHead].thead {
		nHead++
	}
	if nHead == 0 {
		for nHead < len(grid)-1 && allHeader(grid[nHead]) {
			nHead++
		}
	}
	text := func(row []gridCell) []string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = c.text
		}
		return out
	}
	var header [][]string
	for _, row := range grid[:nHead] {
		header = append(header, text(row))
	}
	var body [][]string
	for _, row := range grid[nHead:] {
		cells := text(row)
		if !rowEmpty(cells) {
			body = append(body, cells)
		}
	}
	tab := tableFrom(header, body, len(grid[0]))
	tab.Method = "html"
	tab.Caption = t.caption
	tab.Clipped = clipped
	return tab, true
}

func allHeader(row []gridCell) bool {
	seen := false
	for _, c := range row {
		if c.set && !c.header {
			return false
		}
		seen = seen || c.set
	}
	return seen
}

func rowEmpty(cells []string) bool {
	for _, c := range cells {
		if c != "" {
			return false
		}
	}
	return true
}

// tableFrom builds Columns and Records from header rows and body rows of a
// grid width columns wide.
func tableFrom(header, body [][]string, width int) Table {
	cols := columnNames(header, width)
	if body == nil {
		body = [][]string{} // a header-only table has an empty list of rows, not null
	}
	return Table{Columns: cols, HeaderRows: header, Rows: body, Records: tableRecords(cols, body)}
}

// columnNames names each column from the header rows: the distinct texts
// of the column top to bottom joined with " / " (a spanning group header
// "2020" over "Q1" gives "2020 / Q1"), then made unique and non-empty.
func columnNames(header [][]string, width int) []string {
	names := make([]string, width)
	for c := range width {
		var parts []string
		for _, row := range header {
			if c >= len(row) {
				continue
			}
			t := row[c]
			if t != "" && (len(parts) == 0 || parts[len(parts)-1] != t) {
				parts = append(parts, t)
			}
		}
		names[c] = strings.Join(parts, " / ")
	}
	return uniqueNames(names)
}

// uniqueNames replaces blank names with column_N (N from 1) and suffixes
// repeats with _2, _3, ... skipping any suffix already taken.
func uniqueNames(names []string) []string {
	out := make([]string, len(names))
	used := make(map[string]bool, len(names))
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			n = "column_" + strconv.Itoa(i+1)
		}
		cand := n
		for k := 2; used[cand]; k++ {
			cand = n + "_" + strconv.Itoa(k)
		}
		used[cand] = true
		out[i] = cand
	}
	return out
}

func tableRecords(cols []string, body [][]string) []map[string]string {
	out := make([]map[string]string, 0, len(body))
	for _, row := range body {
		m := make(map[string]string, len(cols))
		for i, c := range cols {
			if i < len(row) {
				m[c] = row[i]
			}
		}
		out = append(out, m)
	}
	return out
}
