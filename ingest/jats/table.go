package jats

import (
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/ingest"
)

// Bounds on one table, so that hostile spans cannot blow a few bytes of
// XML up into millions of cells. Real tables stay far below them.
const (
	maxTableCols  = 128
	maxTableRows  = 4096
	maxTableCells = 1 << 16
	maxSpan       = 1024
)

// readTables appends the tables of every table-wrap at or under n,
// outermost first; a table-wrap inside another is part of it.
func readTables(t *tree, n int32, dst []ingest.Table) []ingest.Table {
	if n == none {
		return dst
	}
	if t.nodes[n].local == "table-wrap" {
		if tb, ok := readTableWrap(t, n); ok {
			dst = append(dst, tb)
		}
		return dst
	}
	for c := t.nodes[n].first; c != none; c = t.nodes[c].next {
		if t.nodes[c].local != "" {
			dst = readTables(t, c, dst)
		}
	}
	return dst
}

// hasTables reports whether the captured tree holds a table-wrap; it
// saves walking paragraphs that have none (almost all).
func (t *tree) hasTables() bool {
	for i := range t.nodes {
		if t.nodes[i].local == "table-wrap" {
			return true
		}
	}
	return false
}

// readTableWrap reads one <table-wrap>: label, caption, the first
// <table> (directly or inside <alternatives>) and the footnotes of
// <table-wrap-foot>. A table-wrap without a table (an image of a table)
// is not a table.
func readTableWrap(t *tree, n int32) (ingest.Table, bool) {
	tb := ingest.Table{
		Label:   strings.TrimRight(t.text(t.child(n, "label"), skipInTitle), " .:"),
		Caption: t.text(t.child(n, "caption"), skipInTitle),
	}
	table := t.child(n, "table")
	if table == none {
		table = t.child(t.child(n, "alternatives"), "table")
	}
	if table == none {
		return tb, false
	}
	var g grid
	bare := false // the table's own rows (no tbody) have been read
	for c := t.nodes[table].first; c != none; c = t.nodes[c].next {
		switch t.nodes[c].local {
		case "thead":
			tb.Header = append(tb.Header, g.rows(t, c)...)
		case "tbody":
			tb.Rows = append(tb.Rows, g.rows(t, c)...)
		case "tr":
			if !bare {
				tb.Rows = append(tb.Rows, g.rows(t, table)...)
				bare = true
			}
		case "tfoot":
			// A table foot holds notes, not data.
			for r := t.nodes[c].first; r != none; r = t.nodes[r].next {
				if s := t.text(r, skipInTitle); s != "" {
					tb.Footnotes = append(tb.Footnotes, s)
				}
			}
		}
	}
	if len(tb.Header) == 0 && len(g.thRows) > 0 {
		// No <thead>: leading rows of <th> cells are the header.
		k := 0
		for k < len(tb.Rows) && k < len(g.thRows) && g.thRows[k] {
			k++
		}
		if k > 0 {
			tb.Header, tb.Rows = tb.Rows[:k], tb.Rows[k:]
		}
	}
	g.pad(tb.Header)
	g.pad(tb.Rows)
	if foot := t.child(n, "table-wrap-foot"); foot != none {
		tb.Footnotes = footnotes(t, foot, tb.Footnotes)
	}
	return tb, len(tb.Header)+len(tb.Rows) > 0
}

// footnotes reads each fn (or bare p) of a table-wrap-foot as one note.
func footnotes(t *tree, n int32, dst []string) []string {
	for c := t.nodes[n].first; c != none; c = t.nodes[c].next {
		switch t.nodes[c].local {
		case "fn", "p", "attrib":
			if s := t.text(c, nil); s != "" {
				dst = append(dst, s)
			}
		case "fn-group":
			dst = footnotes(t, c, dst)
		}
	}
	return dst
}

// grid expands the rows of a table into a rectangle: cells spanning
// several rows or columns are repeated in each.
type grid struct {
	cols   int    // widest row so far
	cells  int    // cells so far, bounded by maxTableCells
	nrows  int    // rows so far, bounded by maxTableRows
	thRows []bool // per row read outside a thead: only <th> cells
}

// pending is a cell continuing into following rows.
type pending struct {
	text string
	left int // rows still to fill
}

// rows reads the tr children of a row group (thead, tbody, or a table
// with bare rows). A rowspan does not continue past its group.
func (g *grid) rows(t *tree, group int32) [][]string {
	var (
		out   [][]string
		carry []pending // by column
	)
	inHead := t.nodes[group].local == "thead"
	for r := t.nodes[group].first; r != none; r = t.nodes[r].next {
		if t.nodes[r].local != "tr" {
			continue
		}
		if g.nrows >= maxTableRows || g.cells >= maxTableCells {
			break
		}
		var row []string
		allTH, any := true, false
		col := 0
		// fill takes the cells continuing from rows above at col.
		fill := func() {
			for col < len(carry) && carry[col].left > 0 && col < maxTableCols {
				row = append(row, carry[col].text)
				carry[col].left--
				col++
			}
		}
		for c := t.nodes[r].first; c != none; c = t.nodes[c].next {
			local := t.nodes[c].local
			if local != "td" && local != "th" {
				continue
			}
			any = true
			allTH = allTH && local == "th"
			fill()
			text := strings.TrimSpace(t.text(c, skipInTitle))
			cs := span(t.attr(c, "colspan"))
			rs := span(t.attr(c, "rowspan"))
			for k := 0; k < cs && col < maxTableCols; k++ {
				row = append(row, text)
				for len(carry) <= col {
					carry = append(carry, pending{})
				}
				carry[col] = pending{text, rs - 1}
				col++
			}
		}
		fill()
		if !any {
			continue
		}
		g.cells += len(row)
		g.nrows++
		g.cols = max(g.cols, len(row))
		out = append(out, row)
		if !inHead {
			g.thRows = append(g.thRows, allTH)
		}
	}
	return out
}

// span parses a colspan or rowspan: 1 when absent or not a positive
// number, at most maxSpan.
func span(s string) int {
	if s == "" {
		return 1 // most cells: no need for Atoi's error
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxSpan)
}

// pad gives every row the table's width.
func (g *grid) pad(rows [][]string) {
	for i, r := range rows {
		for len(r) < g.cols {
			r = append(r, "")
		}
		rows[i] = r
	}
}
