package tables

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// Table detection on PDF pages, from what tablespdfcontent.go reads.
//
// Ruled tables ("lattice"): horizontal and vertical rulings that touch each
// other form a component; its distinct x and y positions make a grid of
// cells, and a cell boundary without a ruling means the cells on both sides
// are one spanning cell. Text goes to the cell holding its centre.
//
// Aligned tables ("stream"): lines of text are split into chunks where the
// gap between words is wider than a word space; three or more consecutive
// lines of two or more chunks whose chunks line up, so that the vertical
// whitespace gaps between them are the same on every line, make a table.
// Justified prose and two-column layouts do not qualify: their gaps wander
// from line to line (so the column bands merge into one) or their chunks are
// long runs of words.

// pdfWord is a run of glyphs on one baseline without a space between them.
type pdfWord struct {
	x0, x1 float64
	y      float64 // baseline
	size   float64
	text   string
	bold   bool
	used   bool // assigned to a ruled table
}

func (w *pdfWord) cx() float64 { return (w.x0 + w.x1) / 2 }

// cy is roughly the vertical middle of the glyphs: baseline plus a third of
// the font size.
func (w *pdfWord) cy() float64 { return w.y + w.size/3 }

// pdfLine is words sharing a baseline, left to right.
type pdfLine struct {
	y     float64
	size  float64
	words []*pdfWord
}

// Tolerances in points.
const (
	snapTol = 2.0 // rulings this close are the same line
)

// pdfResult is the outcome of reading a PDF.
type pdfResult struct {
	pageCount int
	pages     []int
	tables    []Table
	clipped   bool
	warnings  []string
}

// errNotPDF: the bytes are not a PDF the reader can open.
var errNotPDF = errors.New("not a readable PDF")

// extractPDFTables finds the tables on the selected pages of a PDF.
func extractPDFTables(ctx context.Context, data []byte, spec pageSpec, maxTables int) (res pdfResult, err error) {
	defer func() {
		// The pdf package reports malformed structure by panicking.
		if r := recover(); r != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
				return
			}
			err = fmt.Errorf("%w: %v", errNotPDF, r)
		}
	}()
	src := &budgetReader{r: bytes.NewReader(data), ctx: ctx, budget: readBudget(len(data))}
	rd, err := pdf.NewReader(src, int64(len(data)))
	if err != nil {
		return res, fmt.Errorf("%w: %v", errNotPDF, err)
	}
	res.pageCount = rd.NumPage()
	pages, err := spec.resolve(res.pageCount)
	if err != nil {
		return res, err
	}
	res.pages = pages
	for _, p := range pages {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		pc, err := readPageContent(ctx, rd.Page(p))
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			if src.read > src.budget {
				return res, fmt.Errorf("%w: %v", errNotPDF, errReadBudget)
			}
			res.warnings = append(res.warnings, fmt.Sprintf("page %d: %v", p, err))
			continue
		}
		for _, t := range pageTables(pc) {
			if len(res.tables) >= maxTables {
				res.clipped = true
				return res, nil
			}
			t.Page = p
			t.Index = len(res.tables)
			res.tables = append(res.tables, t)
		}
	}
	return res, nil
}

// budgetReader is the PDF bytes as the pdf package reads them, with a stop:
// once the context is done or the reads pass a budget, every read fails.
//
// The pdf package has loops a hostile file can make endless (a cyclic /Prev
// chain of xref sections, a page tree or /Parent chain that points back,
// object streams that /Extends each other) and cannot be interrupted. Every
// such cycle goes through an indirect reference, and the package resolves
// each reference by reading the file again, so failing reads end it: the
// package panics on a read error and extractPDFTables recovers.
type budgetReader struct {
	r      *bytes.Reader
	ctx    context.Context
	budget int64
	read   int64
}

var errReadBudget = errors.New("the PDF needs more work than allowed")

// readBudget allows each byte to be read many times (objects are re-read
// on every lookup: 15 times the file size for a 32-page Chromium PDF) but
// not without end.
func readBudget(size int) int64 { return 40*int64(size) + 8<<20 }

func (b *budgetReader) ReadAt(p []byte, off int64) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	b.read += int64(len(p))
	if b.read > b.budget {
		return 0, errReadBudget
	}
	return b.r.ReadAt(p, off)
}

// pageTables finds the tables of one page, top to bottom.
func pageTables(pc pageContent) []Table {
	words := buildWords(pc.glyphs)
	type found struct {
		top float64
		t   Table
	}
	var out []found
	for _, g := range latticeGrids(pc.hsegs, pc.vsegs) {
		if t, ok := g.table(words); ok {
			out = append(out, found{g.ys[0], t})
		}
	}
	lines := buildLines(words)
	for _, st := range streamTables(lines) {
		out = append(out, found(st))
	}
	slices.SortStableFunc(out, func(a, b found) int { return cmp.Compare(b.top, a.top) })
	tables := make([]Table, 0, len(out))
	for _, f := range out {
		if f.t.Caption == "" {
			f.t.Caption = captionAbove(lines, f.top)
		}
		tables = append(tables, f.t)
	}
	return tables
}

// buildWords groups glyphs into words: same baseline, adjacent, no space.
func buildWords(glyphs []pdfGlyph) []*pdfWord {
	gs := make([]pdfGlyph, 0, len(glyphs))
	for _, g := range glyphs {
		if g.size > 0.5 && g.s != "" {
			gs = append(gs, g)
		}
	}
	var words []*pdfWord
	for _, line := range groupByBaseline(gs) {
		slices.SortStableFunc(line, func(a, b pdfGlyph) int { return cmp.Compare(a.x, b.x) })
		var cur *pdfWord
		var sb strings.Builder
		var bold, total int
		flush := func() {
			if cur != nil && sb.Len() > 0 {
				cur.text = sb.String()
				cur.bold = bold*2 > total
				words = append(words, cur)
			}
			cur, bold, total = nil, 0, 0
			sb.Reset()
		}
		for _, g := range line {
			if strings.TrimSpace(g.s) == "" {
				flush()
				continue
			}
			if cur != nil && g.x-cur.x1 > 0.2*max(g.size, cur.size) {
				flush()
			}
			if cur == nil {
				cur = &pdfWord{x0: g.x, x1: g.x, y: g.y, size: g.size}
			}
			sb.WriteString(g.s)
			cur.x1 = max(cur.x1, g.x+max(g.w, 0))
			cur.size = max(cur.size, g.size)
			total++
			if isBoldFont(g.font) {
				bold++
			}
		}
		flush()
	}
	return words
}

// groupByBaseline buckets glyphs whose baselines are within a third of the
// font size, top line first.
func groupByBaseline(gs []pdfGlyph) [][]pdfGlyph {
	slices.SortStableFunc(gs, func(a, b pdfGlyph) int { return cmp.Compare(b.y, a.y) })
	var lines [][]pdfGlyph
	lineY := math.Inf(1)
	for _, g := range gs {
		if len(lines) == 0 || lineY-g.y > g.size/3 {
			lines = append(lines, nil)
			lineY = g.y
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], g)
	}
	return lines
}

func isBoldFont(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "bold") || strings.Contains(n, "black") || strings.Contains(n, "heavy") ||
		strings.Contains(n, "semibold") || strings.HasSuffix(n, ",b") || strings.Contains(n, "-b,")
}

// buildLines groups the words not used by a ruled table into lines, top
// first.
func buildLines(words []*pdfWord) []pdfLine {
	var ws []*pdfWord
	for _, w := range words {
		if !w.used {
			ws = append(ws, w)
		}
	}
	slices.SortStableFunc(ws, func(a, b *pdfWord) int { return cmp.Compare(b.y, a.y) })
	var lines []pdfLine
	for _, w := range ws {
		if n := len(lines); n > 0 && lines[n-1].y-w.y <= max(w.size, lines[n-1].size)/3 {
			lines[n-1].words = append(lines[n-1].words, w)
			lines[n-1].size = max(lines[n-1].size, w.size)
			continue
		}
		lines = append(lines, pdfLine{y: w.y, size: w.size, words: []*pdfWord{w}})
	}
	for i := range lines {
		slices.SortStableFunc(lines[i].words, func(a, b *pdfWord) int { return cmp.Compare(a.x0, b.x0) })
	}
	return lines
}

// ---- Ruled tables ----

// latticeGrid is a grid made by a connected set of rulings.
type latticeGrid struct {
	xs     []float64 // column boundaries, left to right
	ys     []float64 // row boundaries, top to bottom (descending y)
	hsegs  []pdfSeg
	vsegs  []pdfSeg
	bounds [4]float64 // minX, minY, maxX, maxY
}

// Caps on a ruled grid; a page of hatching is not a table.
const (
	maxLatticeLines = 400
	maxLatticePairs = 4_000_000
	maxLatticeSegs  = 4000
)

func latticeGrids(hsegs, vsegs []pdfSeg) []latticeGrid {
	hs := mergeSegs(hsegs, true)
	vs := mergeSegs(vsegs, false)
	if len(hs) < 2 || len(vs) < 2 {
		return nil
	}
	if len(hs)*len(vs) > maxLatticePairs {
		return nil // hatching or a chart, not something to pair up line by line
	}
	// Connected components: a horizontal and a vertical ruling are joined
	// when they cross or touch.
	parent := make([]int, len(hs)+len(vs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, h := range hs {
		for j, v := range vs {
			if v.x0 >= h.x0-snapTol && v.x0 <= h.x1+snapTol && h.y0 >= v.y0-snapTol && h.y0 <= v.y1+snapTol {
				a, b := find(i), find(len(hs)+j)
				if a != b {
					parent[a] = b
				}
			}
		}
	}
	comps := map[int]*latticeGrid{}
	var order []int
	get := func(root int) *latticeGrid {
		g := comps[root]
		if g == nil {
			g = &latticeGrid{bounds: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
			comps[root] = g
			order = append(order, root)
		}
		return g
	}
	grow := func(g *latticeGrid, s pdfSeg) {
		g.bounds[0], g.bounds[1] = min(g.bounds[0], s.x0), min(g.bounds[1], s.y0)
		g.bounds[2], g.bounds[3] = max(g.bounds[2], s.x1), max(g.bounds[3], s.y1)
	}
	for i, h := range hs {
		g := get(find(i))
		g.hsegs = append(g.hsegs, h)
		grow(g, h)
	}
	for j, v := range vs {
		g := get(find(len(hs) + j))
		g.vsegs = append(g.vsegs, v)
		grow(g, v)
	}
	var out []latticeGrid
	for _, root := range order {
		g := comps[root]
		if len(g.hsegs) < 2 || len(g.vsegs) < 2 || len(g.hsegs)+len(g.vsegs) > maxLatticeSegs {
			continue
		}
		var xs, ys []float64
		for _, v := range g.vsegs {
			xs = append(xs, v.x0)
		}
		for _, h := range g.hsegs {
			ys = append(ys, h.y0)
		}
		g.xs = snapValues(xs)
		g.ys = snapValues(ys)
		slices.Reverse(g.ys)
		if len(g.xs) < 2 || len(g.ys) < 2 || len(g.xs) > maxLatticeLines || len(g.ys) > maxLatticeLines {
			continue
		}
		if (len(g.xs)-1)*(len(g.ys)-1) < 2 {
			continue // a box around something, not a grid
		}
		out = append(out, *g)
	}
	return out
}

// mergeSegs joins collinear rulings that overlap or touch (a border drawn
// cell by cell becomes one line).
func mergeSegs(segs []pdfSeg, horizontal bool) []pdfSeg {
	type key struct{ pos, lo, hi float64 }
	ks := make([]key, 0, len(segs))
	for _, s := range segs {
		if horizontal {
			ks = append(ks, key{s.y0, s.x0, s.x1})
		} else {
			ks = append(ks, key{s.x0, s.y0, s.y1})
		}
	}
	slices.SortFunc(ks, func(a, b key) int {
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return cmp.Compare(a.lo, b.lo)
	})
	// Cluster by position first, then merge along the line.
	var out []pdfSeg
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j].pos-ks[j-1].pos <= snapTol/2 {
			j++
		}
		group := slices.Clone(ks[i:j])
		pos := 0.0
		for _, k := range group {
			pos += k.pos
		}
		pos /= float64(len(group))
		slices.SortFunc(group, func(a, b key) int { return cmp.Compare(a.lo, b.lo) })
		lo, hi := group[0].lo, group[0].hi
		emit := func() {
			if horizontal {
				out = append(out, pdfSeg{lo, pos, hi, pos})
			} else {
				out = append(out, pdfSeg{pos, lo, pos, hi})
			}
		}
		for _, k := range group[1:] {
			if k.lo <= hi+snapTol {
				hi = max(hi, k.hi)
				continue
			}
			emit()
			lo, hi = k.lo, k.hi
		}
		emit()
		i = j
	}
	return out
}

// snapValues sorts vs and merges values closer than snapTol into their mean.
func snapValues(vs []float64) []float64 {
	slices.Sort(vs)
	var out []float64
	for i := 0; i < len(vs); {
		j, sum := i, 0.0
		for j < len(vs) && vs[j]-vs[i] <= snapTol {
			sum += vs[j]
			j++
		}
		out = append(out, sum/float64(j-i))
		i = j
	}
	return out
}

// hasV reports a vertical ruling at x covering height y.
func (g *latticeGrid) hasV(x, y float64) bool {
	for _, v := range g.vsegs {
		if math.Abs(v.x0-x) <= snapTol && y >= v.y0-snapTol && y <= v.y1+snapTol {
			return true
		}
	}
	return false
}

// hasH reports a horizontal ruling at y covering x.
func (g *latticeGrid) hasH(y, x float64) bool {
	for _, h := range g.hsegs {
		if math.Abs(h.y0-y) <= snapTol && x >= h.x0-snapTol && x <= h.x1+snapTol {
			return true
		}
	}
	return false
}

// table fills the grid with the words inside it and marks them used.
func (g *latticeGrid) table(words []*pdfWord) (Table, bool) {
	rows, cols := len(g.ys)-1, len(g.xs)-1
	// Union-find over fine cells: no ruling between two neighbours means
	// one spanning cell.
	parent := make([]int, rows*cols)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[max(ra, rb)] = min(ra, rb) // the top-left cell is the root
		}
	}
	for r := range rows {
		ym := (g.ys[r] + g.ys[r+1]) / 2
		for c := range cols {
			xm := (g.xs[c] + g.xs[c+1]) / 2
			if c+1 < cols && !g.hasV(g.xs[c+1], ym) {
				union(r*cols+c, r*cols+c+1)
			}
			if r+1 < rows && !g.hasH(g.ys[r+1], xm) {
				union(r*cols+c, (r+1)*cols+c)
			}
		}
	}
	cellWords := make([][]*pdfWord, rows*cols)
	for _, w := range words {
		if w.used {
			continue
		}
		x, y := w.cx(), w.cy()
		c, ok := findBand(g.xs, x, false)
		if !ok {
			continue
		}
		r, ok := findBand(g.ys, y, true)
		if !ok {
			continue
		}
		root := find(r*cols + c)
		cellWords[root] = append(cellWords[root], w)
		w.used = true
	}
	grid := make([][]string, rows)
	bold := make([][]bool, rows)
	for r := range rows {
		grid[r] = make([]string, cols)
		bold[r] = make([]bool, cols)
		for c := range cols {
			root := find(r*cols + c)
			grid[r][c], bold[r][c] = cellText(cellWords[root])
		}
	}
	grid, bold = dropEmpty(grid, bold)
	if len(grid) == 0 || len(grid[0]) == 0 || (len(grid) < 2 && len(grid[0]) < 2) {
		return Table{}, false
	}
	t := pdfTable(grid, bold)
	t.Method = "ruled"
	return t, true
}

// findBand returns i with edges[i] <= v <= edges[i+1] (edges descending when
// desc).
func findBand(edges []float64, v float64, desc bool) (int, bool) {
	for i := 0; i+1 < len(edges); i++ {
		lo, hi := edges[i], edges[i+1]
		if desc {
			lo, hi = hi, lo
		}
		if v >= lo && v <= hi {
			return i, true
		}
	}
	return 0, false
}

// cellText joins words top to bottom, left to right, and says whether most
// of them are bold.
func cellText(ws []*pdfWord) (string, bool) {
	if len(ws) == 0 {
		return "", false
	}
	slices.SortStableFunc(ws, func(a, b *pdfWord) int {
		if math.Abs(a.y-b.y) > max(a.size, b.size)/3 {
			return cmp.Compare(b.y, a.y)
		}
		return cmp.Compare(a.x0, b.x0)
	})
	parts := make([]string, len(ws))
	nb := 0
	for i, w := range ws {
		parts[i] = w.text
		if w.bold {
			nb++
		}
	}
	return strings.Join(parts, " "), nb*2 > len(ws)
}

// dropEmpty removes rows and columns without any text (double borders make
// thin empty strips).
func dropEmpty(grid [][]string, bold [][]bool) ([][]string, [][]bool) {
	var g2 [][]string
	var b2 [][]bool
	for r, row := range grid {
		if !rowEmpty(row) {
			g2 = append(g2, row)
			b2 = append(b2, bold[r])
		}
	}
	if len(g2) == 0 {
		return nil, nil
	}
	keep := make([]bool, len(g2[0]))
	for _, row := range g2 {
		for c, s := range row {
			keep[c] = keep[c] || s != ""
		}
	}
	for r := range g2 {
		var row []string
		var br []bool
		for c, k := range keep {
			if k {
				row = append(row, g2[r][c])
				br = append(br, b2[r][c])
			}
		}
		g2[r], b2[r] = row, br
	}
	return g2, b2
}

// pdfTable decides on header rows and builds the API table. PDFs do not
// mark headers, so the leading rows are the header when they are set in
// bold and the body is not (several bold rows make a multi-level header),
// or else the first row is when it is all text above a column whose body is
// mostly numbers.
func pdfTable(grid [][]string, bold [][]bool) Table {
	width := len(grid[0])
	nHead := headerRowCount(grid, bold)
	t := tableFrom(grid[:nHead], grid[nHead:], width)
	if nHead == 0 {
		t.HeaderRows = nil
	}
	return t
}

func headerRowCount(grid [][]string, bold [][]bool) int {
	if len(grid) < 2 {
		return 0
	}
	// boldShare counts non-empty cells and bold ones over rows [from, to).
	boldShare := func(from, to int) (nb, n int) {
		for r := from; r < to; r++ {
			for c, s := range grid[r] {
				if s != "" {
					n++
					if bold[r][c] {
						nb++
					}
				}
			}
		}
		return nb, n
	}
	k := 0
	for k < len(grid)-1 {
		nb, n := boldShare(k, k+1)
		if n == 0 || nb*2 <= n {
			break
		}
		k++
	}
	if k > 0 {
		if nb, n := boldShare(k, len(grid)); nb*2 < n {
			return k
		}
	}
	first := grid[0]
	for _, s := range first {
		if s != "" && isNumeric(s) {
			return 0
		}
	}
	for c := range first {
		if first[c] == "" {
			continue
		}
		numeric, filled := 0, 0
		for r := 1; r < len(grid); r++ {
			if s := grid[r][c]; s != "" {
				filled++
				if isNumeric(s) {
					numeric++
				}
			}
		}
		if filled > 0 && numeric*2 >= filled {
			return 1
		}
	}
	return 0
}

// isNumeric: a number, possibly with sign, grouping, decimals, percent or a
// currency sign.
func isNumeric(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "$€£¥+-−(")
	s = strings.TrimRight(s, "%)")
	if s == "" {
		return false
	}
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case r == '.' || r == ',' || r == ' ' || r == '\u00a0':
		default:
			return false
		}
	}
	return digits > 0
}

// ---- Aligned tables ----

type streamTable struct {
	top float64
	t   Table
}

// chunk is a run of words on a line separated by no more than a word space.
type chunk struct {
	x0, x1 float64
	text   string
	bold   bool
	words  int
}

// colGap: a gap wider than this fraction of the font size separates
// chunks. A word space is about a quarter of an em and justified lines
// stretch it to two thirds or so; table columns are usually an em or more
// apart (LaTeX: 2 × tabcolsep = 12 pt).
const colGap = 0.8

func lineChunks(l pdfLine) []chunk {
	var out []chunk
	var parts []string
	nb := 0
	for i, w := range l.words {
		if i > 0 && w.x0-l.words[i-1].x1 <= colGap*max(w.size, l.words[i-1].size) {
			c := &out[len(out)-1]
			c.x1 = max(c.x1, w.x1)
			parts = append(parts, w.text)
			c.words++
		} else {
			if len(out) > 0 {
				out[len(out)-1].text = strings.Join(parts, " ")
				out[len(out)-1].bold = nb*2 > out[len(out)-1].words
			}
			out = append(out, chunk{x0: w.x0, x1: w.x1, words: 1})
			parts, nb = []string{w.text}, 0
		}
		if w.bold {
			nb++
		}
	}
	if len(out) > 0 {
		out[len(out)-1].text = strings.Join(parts, " ")
		out[len(out)-1].bold = nb*2 > out[len(out)-1].words
	}
	return out
}

// Requirements for an aligned table.
const (
	minStreamRows      = 3
	maxRowGap          = 3.0  // baselines at most this many font sizes apart
	maxMedianChunkLen  = 40   // characters; longer cells are prose
	minStreamFillRatio = 0.55 // share of row × column slots holding text
)

func streamTables(lines []pdfLine) []streamTable {
	var out []streamTable
	chunks := make([][]chunk, len(lines))
	for i, l := range lines {
		chunks[i] = lineChunks(l)
	}
	// A row candidate has two or more chunks, most of them short: lines of
	// a multi-column text layout have two long chunks and end a block, so
	// prose next to a table does not merge its column bands into the
	// table's.
	candidate := func(cs []chunk) bool {
		if len(cs) < 2 {
			return false
		}
		lens := make([]int, len(cs))
		for i, c := range cs {
			lens[i] = len([]rune(c.text))
		}
		slices.Sort(lens)
		return lens[(len(lens)-1)/2] <= maxMedianChunkLen
	}
	for i := 0; i < len(lines); {
		if !candidate(chunks[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(lines) && candidate(chunks[j]) && lines[j-1].y-lines[j].y <= maxRowGap*max(lines[j].size, lines[j-1].size) {
			j++
		}
		// A stray line just before or after the table (the end of a
		// justified paragraph, a page number) can look like a row; try
		// without up to two such lines at either end.
	trim:
		for drop := 0; drop <= 4; drop++ {
			for head := 0; head <= min(drop, 2); head++ {
				tail := drop - head
				if tail > 2 || j-tail-(i+head) < minStreamRows {
					continue
				}
				if t, ok := alignedTable(chunks[i+head : j-tail]); ok {
					out = append(out, streamTable{top: lines[i+head].y + lines[i+head].size, t: t})
					break trim
				}
			}
		}
		i = j
	}
	return out
}

// alignedTable checks that the rows' chunks fall into consistent column
// bands, and builds the table.
func alignedTable(rows [][]chunk) (Table, bool) {
	if len(rows) < minStreamRows {
		return Table{}, false
	}
	type band struct{ x0, x1 float64 }
	var all []band
	var lens []int
	for _, row := range rows {
		for _, c := range row {
			all = append(all, band{c.x0, c.x1})
			lens = append(lens, len([]rune(c.text)))
		}
	}
	slices.Sort(lens)
	if lens[len(lens)/2] > maxMedianChunkLen {
		return Table{}, false
	}
	slices.SortFunc(all, func(a, b band) int { return cmp.Compare(a.x0, b.x0) })
	var bands []band
	for _, b := range all {
		if n := len(bands); n > 0 && b.x0 <= bands[n-1].x1 {
			bands[n-1].x1 = max(bands[n-1].x1, b.x1)
			continue
		}
		bands = append(bands, b)
	}
	if len(bands) < 2 {
		return Table{}, false
	}
	grid := make([][]string, len(rows))
	bold := make([][]bool, len(rows))
	filled := 0
	for r, row := range rows {
		grid[r] = make([]string, len(bands))
		bold[r] = make([]bool, len(bands))
		for _, c := range row {
			for k, b := range bands {
				if c.x0 >= b.x0 && c.x1 <= b.x1 {
					if grid[r][k] != "" {
						// Two chunks of one row in one band: the gap
						// between them is not a column gap on the other
						// rows, so the columns are not consistent.
						return Table{}, false
					}
					filled++
					grid[r][k] = c.text
					bold[r][k] = c.bold
					break
				}
			}
		}
	}
	if float64(filled) < minStreamFillRatio*float64(len(rows)*len(bands)) {
		return Table{}, false
	}
	t := pdfTable(grid, bold)
	t.Method = "aligned"
	return t, true
}

// captionAbove returns the line just above a table's top when it starts
// like a table caption ("Table 3: ...").
func captionAbove(lines []pdfLine, top float64) string {
	// Lines run top to bottom, so walk them backwards to meet the nearest
	// line above the table first.
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l.y <= top {
			continue
		}
		if l.y-top > 3*l.size {
			return ""
		}
		var parts []string
		for _, w := range l.words {
			parts = append(parts, w.text)
		}
		s := strings.Join(parts, " ")
		if f := strings.Fields(s); len(f) >= 2 && strings.EqualFold(f[0], "table") {
			if _, err := strconv.Atoi(strings.TrimRight(f[1], ".:")); err == nil {
				return s
			}
		}
		return ""
	}
	return ""
}
