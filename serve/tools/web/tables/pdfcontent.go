package tables

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// This file reads what a PDF page draws: glyphs with their positions and
// widths, and the straight lines and thin rectangles that can be table
// rulings. It walks the content stream with pdf.Interpret itself instead of
// using pdf.Page.Content, because Content does not apply the current
// transformation matrix to rectangles (Chromium/Skia draws everything under
// a scaling, y-flipping cm, so its rectangles come out in the wrong space),
// ignores line paths, and takes glyph widths only from simple fonts (every
// glyph of a Type0/CID font, which is what Chromium embeds, gets width 0).

// Caps on the work one page may cost; a page over them is reported as
// unreadable rather than allowed to run away.
const (
	maxPageOps    = 2_000_000
	maxPageGlyphs = 200_000
	maxPageSegs   = 100_000
	maxFormDepth  = 8
)

var errPageTooComplex = errors.New("page content exceeds the processing limits")

// pdfGlyph is one shown character.
type pdfGlyph struct {
	x, y float64 // origin in default user space (points, y up)
	w    float64 // advance width in user space
	size float64 // effective font size in user space
	s    string
	font string
}

// pdfSeg is a horizontal (y0 == y1, x0 < x1) or vertical (x0 == x1,
// y0 < y1) ruling in default user space.
type pdfSeg struct{ x0, y0, x1, y1 float64 }

// pageContent is what readPageContent found on a page.
type pageContent struct {
	glyphs []pdfGlyph
	hsegs  []pdfSeg
	vsegs  []pdfSeg
}

// mat is a PDF matrix [a b c d e f]; points are row vectors, so p×A×B
// applies A first.
type mat [6]float64

var pdfIdentity = mat{1, 0, 0, 1, 0, 0}

func (x mat) mul(y mat) mat {
	return mat{
		x[0]*y[0] + x[1]*y[2], x[0]*y[1] + x[1]*y[3],
		x[2]*y[0] + x[3]*y[2], x[2]*y[1] + x[3]*y[3],
		x[4]*y[0] + x[5]*y[2] + y[4], x[4]*y[1] + x[5]*y[3] + y[5],
	}
}

func (x mat) apply(px, py float64) (float64, float64) {
	return px*x[0] + py*x[2] + x[4], px*x[1] + py*x[3] + x[5]
}

// pdfFont is what the interpreter needs of a font.
type pdfFont struct {
	name    string
	twoByte bool // Type0 font: 2-byte codes (Identity-H and the usual CMaps)
	enc     pdf.TextEncoding
	// widths in glyph space (1/1000 of the font size)
	simple     map[int]float64
	cidRanges  []cidWidth
	defWidth   float64
	spaceCodes bool // code 32 is a single-byte space that takes word spacing
}

type cidWidth struct {
	lo, hi int
	w      float64   // when list is nil
	list   []float64 // widths of lo, lo+1, ...
}

func (f *pdfFont) width(code int) float64 {
	if !f.twoByte {
		if w, ok := f.simple[code]; ok {
			return w
		}
		return f.defWidth
	}
	for _, r := range f.cidRanges {
		if code >= r.lo && code <= r.hi {
			if r.list != nil {
				return r.list[code-r.lo]
			}
			return r.w
		}
	}
	return f.defWidth
}

func loadFont(v pdf.Value) *pdfFont {
	f := &pdfFont{name: v.Key("BaseFont").Name()}
	if i := strings.IndexByte(f.name, '+'); i >= 0 && i < len(f.name)-1 {
		f.name = f.name[i+1:] // subset tag ABCDEF+
	}
	pf := pdf.Font{V: v}
	f.enc = pf.Encoder()
	if v.Key("Subtype").Name() == "Type0" {
		f.twoByte = true
		d := v.Key("DescendantFonts").Index(0)
		f.defWidth = 1000
		if dw := d.Key("DW"); !dw.IsNull() {
			f.defWidth = dw.Float64()
		}
		f.cidRanges = parseCIDWidths(d.Key("W"))
		return f
	}
	f.spaceCodes = true
	f.simple = make(map[int]float64)
	first := int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	for i := 0; i < ws.Len() && i < 256; i++ {
		f.simple[first+i] = ws.Index(i).Float64()
	}
	// Standard 14 fonts may come without Widths; half an em is a fair guess
	// for the gaps we measure.
	f.defWidth = 500
	if ws.Len() > 0 {
		f.defWidth = v.Key("FontDescriptor").Key("MissingWidth").Float64()
	}
	return f
}

// parseCIDWidths reads a CIDFont W array: "c [w1 w2 ...]" and
// "cfirst clast w" entries.
func parseCIDWidths(w pdf.Value) []cidWidth {
	var out []cidWidth
	n := w.Len()
	for i := 0; i < n && len(out) < 65536; {
		lo := int(w.Index(i).Int64())
		if i+1 >= n {
			break
		}
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			list := make([]float64, 0, min(next.Len(), 65536))
			for j := 0; j < next.Len() && j < 65536; j++ {
				list = append(list, next.Index(j).Float64())
			}
			if len(list) > 0 {
				out = append(out, cidWidth{lo: lo, hi: lo + len(list) - 1, list: list})
			}
			i += 2
			continue
		}
		if i+2 >= n {
			break
		}
		out = append(out, cidWidth{lo: lo, hi: int(next.Int64()), w: w.Index(i + 2).Float64()})
		i += 3
	}
	return out
}

// textState is the part of the graphics state that text operators use.
type textState struct {
	tc, tw, th, tl, fs, rise float64
	font                     *pdfFont
}

type gstate struct {
	ctm  mat
	text textState
}

// pathPiece is a straight piece of the current path, in user space.
type pathPiece struct{ x0, y0, x1, y1 float64 }

// subpath is a run of path pieces; rect marks one made by "re".
type subpath struct {
	pieces []pathPiece
	curved bool
}

type contentReader struct {
	ctx    context.Context
	out    pageContent
	fonts  map[string]*pdfFont // by font dictionary pdfIdentity (resource path)
	ops    int
	g      gstate
	stack  []gstate
	tm     mat
	tlm    mat
	paths  []subpath
	cx, cy float64 // current point
	sx, sy float64 // start of the current subpath
}

// readPageContent interprets the page's content stream. A malformed stream
// makes the pdf package panic; that becomes an error for this page only.
func readPageContent(ctx context.Context, page pdf.Page) (pc pageContent, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && (errors.Is(e, errPageTooComplex) || errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded)) {
				err = e
			} else {
				err = fmt.Errorf("unreadable page content: %v", r)
			}
			pc = pageContent{}
		}
	}()
	if page.V.IsNull() {
		return pageContent{}, errors.New("page not found")
	}
	cr := &contentReader{ctx: ctx, fonts: map[string]*pdfFont{}}
	cr.g = gstate{ctm: pdfIdentity, text: textState{th: 1}}
	contents := page.V.Key("Contents")
	if contents.IsNull() {
		return pageContent{}, nil
	}
	cr.run(contents, page.Resources(), "p", 0)
	return cr.out, nil
}

func (cr *contentReader) run(strm, res pdf.Value, resID string, depth int) {
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		cr.ops++
		if cr.ops > maxPageOps {
			panic(errPageTooComplex)
		}
		if cr.ops%4096 == 0 {
			if err := cr.ctx.Err(); err != nil {
				panic(err)
			}
		}
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		cr.op(op, args, res, resID, depth)
	})
}

func pdfNum(args []pdf.Value, i int) float64 {
	if i >= len(args) {
		return 0
	}
	f := args[i].Float64()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func matArgs(args []pdf.Value) mat {
	var m mat
	for i := range 6 {
		m[i] = pdfNum(args, i)
	}
	return m
}

func (cr *contentReader) op(op string, args []pdf.Value, res pdf.Value, resID string, depth int) {
	g := &cr.g
	switch op {
	case "q":
		if len(cr.stack) < 1024 {
			cr.stack = append(cr.stack, cr.g)
		}
	case "Q":
		if n := len(cr.stack); n > 0 {
			cr.g = cr.stack[n-1]
			cr.stack = cr.stack[:n-1]
		}
	case "cm":
		if len(args) == 6 {
			g.ctm = matArgs(args).mul(g.ctm)
		}

	// Path construction, in user space (cm cannot occur inside a path).
	case "m":
		cr.cx, cr.cy = g.ctm.apply(pdfNum(args, 0), pdfNum(args, 1))
		cr.sx, cr.sy = cr.cx, cr.cy
		cr.paths = append(cr.paths, subpath{})
	case "l":
		x, y := g.ctm.apply(pdfNum(args, 0), pdfNum(args, 1))
		cr.piece(x, y, false)
	case "c", "v", "y":
		if len(args) >= 2 {
			x, y := g.ctm.apply(pdfNum(args, len(args)-2), pdfNum(args, len(args)-1))
			cr.piece(x, y, true)
		}
	case "h":
		cr.piece(cr.sx, cr.sy, false)
	case "re":
		x, y, w, h := pdfNum(args, 0), pdfNum(args, 1), pdfNum(args, 2), pdfNum(args, 3)
		sp := subpath{}
		pts := [5][2]float64{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}, {x, y}}
		for i := range 4 {
			x0, y0 := g.ctm.apply(pts[i][0], pts[i][1])
			x1, y1 := g.ctm.apply(pts[i+1][0], pts[i+1][1])
			sp.pieces = append(sp.pieces, pathPiece{x0, y0, x1, y1})
		}
		cr.paths = append(cr.paths, sp)
		cr.cx, cr.cy = g.ctm.apply(x, y)
		cr.sx, cr.sy = cr.cx, cr.cy
	case "S", "s":
		cr.paint(true)
	case "f", "F", "f*":
		cr.paint(false)
	case "B", "B*", "b", "b*":
		cr.paint(true)
	case "n":
		cr.paths = cr.paths[:0]

	// Text.
	case "BT":
		cr.tm, cr.tlm = pdfIdentity, pdfIdentity
	case "Tf":
		if len(args) == 2 {
			g.text.font = cr.font(res, resID, args[0].Name())
			g.text.fs = pdfNum(args, 1)
		}
	case "Tc":
		g.text.tc = pdfNum(args, 0)
	case "Tw":
		g.text.tw = pdfNum(args, 0)
	case "Tz":
		g.text.th = pdfNum(args, 0) / 100
	case "TL":
		g.text.tl = pdfNum(args, 0)
	case "Ts":
		g.text.rise = pdfNum(args, 0)
	case "Td":
		cr.tlm = mat{1, 0, 0, 1, pdfNum(args, 0), pdfNum(args, 1)}.mul(cr.tlm)
		cr.tm = cr.tlm
	case "TD":
		g.text.tl = -pdfNum(args, 1)
		cr.tlm = mat{1, 0, 0, 1, pdfNum(args, 0), pdfNum(args, 1)}.mul(cr.tlm)
		cr.tm = cr.tlm
	case "Tm":
		if len(args) == 6 {
			cr.tm = matArgs(args)
			cr.tlm = cr.tm
		}
	case "T*":
		cr.nextLine()
	case "Tj":
		if len(args) == 1 {
			cr.show(args[0].RawString())
		}
	case "'":
		cr.nextLine()
		if len(args) == 1 {
			cr.show(args[0].RawString())
		}
	case "\"":
		if len(args) == 3 {
			g.text.tw = pdfNum(args, 0)
			g.text.tc = pdfNum(args, 1)
			cr.nextLine()
			cr.show(args[2].RawString())
		}
	case "TJ":
		if len(args) == 1 {
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				x := a.Index(i)
				if x.Kind() == pdf.String {
					cr.show(x.RawString())
				} else {
					tx := -x.Float64() / 1000 * g.text.fs * g.text.th
					cr.tm = mat{1, 0, 0, 1, tx, 0}.mul(cr.tm)
				}
			}
		}

	case "Do":
		if len(args) != 1 || depth >= maxFormDepth {
			return
		}
		name := args[0].Name()
		xo := res.Key("XObject").Key(name)
		if xo.Key("Subtype").Name() != "Form" {
			return
		}
		saved, savedStack := cr.g, len(cr.stack)
		if m := xo.Key("Matrix"); m.Len() == 6 {
			var fm mat
			for i := range 6 {
				fm[i] = m.Index(i).Float64()
			}
			cr.g.ctm = fm.mul(cr.g.ctm)
		}
		xres := xo.Key("Resources")
		xid := resID + "/" + name
		if xres.IsNull() {
			xres, xid = res, resID
		}
		cr.run(xo, xres, xid, depth+1)
		cr.g = saved
		cr.stack = cr.stack[:min(savedStack, len(cr.stack))]
	}
}

func (cr *contentReader) nextLine() {
	cr.tlm = mat{1, 0, 0, 1, 0, -cr.g.text.tl}.mul(cr.tlm)
	cr.tm = cr.tlm
}

func (cr *contentReader) font(res pdf.Value, resID, name string) *pdfFont {
	key := resID + "\x00" + name
	if f, ok := cr.fonts[key]; ok {
		return f
	}
	v := res.Key("Font").Key(name)
	var f *pdfFont
	if !v.IsNull() {
		f = loadFont(v)
	}
	cr.fonts[key] = f
	return f
}

// show places the glyphs of one string operand and advances the text matrix.
func (cr *contentReader) show(raw string) {
	t := &cr.g.text
	f := t.font
	if f == nil {
		return
	}
	step := 1
	if f.twoByte {
		step = 2
	}
	for i := 0; i+step <= len(raw); i += step {
		code := int(raw[i])
		if step == 2 {
			code = code<<8 | int(raw[i+1])
		}
		w0 := f.width(code)
		m := cr.tm.mul(cr.g.ctm)
		trm := mat{t.fs * t.th, 0, 0, t.fs, 0, t.rise}.mul(m)
		scaleX := math.Hypot(m[0], m[1])
		size := math.Abs(t.fs) * math.Hypot(m[2], m[3])
		s := f.enc.Decode(raw[i : i+step])
		if len(cr.out.glyphs) >= maxPageGlyphs {
			panic(errPageTooComplex)
		}
		cr.out.glyphs = append(cr.out.glyphs, pdfGlyph{
			x: trm[4], y: trm[5], w: w0 / 1000 * t.fs * t.th * scaleX,
			size: size, s: s, font: f.name,
		})
		tx := w0/1000*t.fs + t.tc
		if f.spaceCodes && code == 32 {
			tx += t.tw
		}
		cr.tm = mat{1, 0, 0, 1, tx * t.th, 0}.mul(cr.tm)
	}
}

func (cr *contentReader) piece(x, y float64, curved bool) {
	if len(cr.paths) == 0 {
		cr.paths = append(cr.paths, subpath{})
	}
	sp := &cr.paths[len(cr.paths)-1]
	if curved {
		sp.curved = true
	} else {
		sp.pieces = append(sp.pieces, pathPiece{cr.cx, cr.cy, x, y})
	}
	cr.cx, cr.cy = x, y
}

// Rulings: a stroked straight piece at most tilt off the axis, or a filled
// axis-aligned rectangle at most maxRuleWidth thick. Filled larger
// rectangles are cell backgrounds and not boundaries we can rely on.
const (
	minRuleLength = 2.0
	maxRuleWidth  = 3.0
	tilt          = 0.5
)

func (cr *contentReader) paint(stroke bool) {
	for _, sp := range cr.paths {
		if stroke {
			for _, p := range sp.pieces {
				cr.addSeg(p.x0, p.y0, p.x1, p.y1)
			}
			continue
		}
		if sp.curved || len(sp.pieces) < 3 {
			continue
		}
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		axis := true
		for _, p := range sp.pieces {
			if math.Abs(p.x0-p.x1) > tilt && math.Abs(p.y0-p.y1) > tilt {
				axis = false
			}
			minX, maxX = min(minX, p.x0, p.x1), max(maxX, p.x0, p.x1)
			minY, maxY = min(minY, p.y0, p.y1), max(maxY, p.y0, p.y1)
		}
		if !axis {
			continue
		}
		w, h := maxX-minX, maxY-minY
		switch {
		case h <= maxRuleWidth && w >= minRuleLength:
			cr.addSeg(minX, (minY+maxY)/2, maxX, (minY+maxY)/2)
		case w <= maxRuleWidth && h >= minRuleLength:
			cr.addSeg((minX+maxX)/2, minY, (minX+maxX)/2, maxY)
		}
	}
	cr.paths = cr.paths[:0]
}

func (cr *contentReader) addSeg(x0, y0, x1, y1 float64) {
	if len(cr.out.hsegs)+len(cr.out.vsegs) >= maxPageSegs {
		panic(errPageTooComplex)
	}
	switch {
	case math.Abs(y0-y1) <= tilt && math.Abs(x1-x0) >= minRuleLength:
		y := (y0 + y1) / 2
		cr.out.hsegs = append(cr.out.hsegs, pdfSeg{min(x0, x1), y, max(x0, x1), y})
	case math.Abs(x0-x1) <= tilt && math.Abs(y1-y0) >= minRuleLength:
		x := (x0 + x1) / 2
		cr.out.vsegs = append(cr.out.vsegs, pdfSeg{x, min(y0, y1), x, max(y0, y1)})
	}
}
