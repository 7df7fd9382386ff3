package render

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"image"
	_ "image/gif"  // image sizes of embedded GIFs
	_ "image/jpeg" // and JPEGs
	_ "image/png"  // and PNGs
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// PageSize is a paper size in twentieths of a point (twips).
type PageSize struct {
	Name          string
	Width, Height int
}

// Page sizes of render_document.
var (
	A4     = PageSize{"A4", 11906, 16838}
	Letter = PageSize{"Letter", 12240, 15840}
	Legal  = PageSize{"Legal", 12240, 20160}
)

// margin is one inch on every side.
const margin = 1440

// DOCXOptions set the document's metadata and page.
type DOCXOptions struct {
	Title string
	Page  PageSize
	// Now is the creation time written to docProps/core.xml.
	Now time.Time
}

// DOCX renders Markdown as a .docx file.
func DOCX(markdown string, opts DOCXOptions) ([]byte, error) {
	if opts.Page.Width == 0 {
		opts.Page = A4
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	doc, src := Parse(markdown)
	w := &docxWriter{src: src, page: opts.Page}
	w.blocks(doc)
	return w.pack(opts)
}

type rel struct{ id, typ, target, mode string }

type media struct {
	name, contentType string
	data              []byte
}

// docxWriter walks the AST and writes document.xml's body.
type docxWriter struct {
	src     []byte
	page    PageSize
	b       strings.Builder
	rels    []rel
	media   []media
	numbers []int // start value of each ordered list's w:num (numId = index+2)
	images  int
}

// run properties of inline formatting in force.
type runProps struct {
	bold, italic, strike, code, link bool
}

func (p runProps) xml() string {
	var s strings.Builder
	if p.code {
		s.WriteString(`<w:rStyle w:val="CodeChar"/>`)
	} else if p.link {
		s.WriteString(`<w:rStyle w:val="Hyperlink"/>`)
	}
	if p.bold {
		s.WriteString("<w:b/>")
	}
	if p.italic {
		s.WriteString("<w:i/>")
	}
	if p.strike {
		s.WriteString("<w:strike/>")
	}
	if s.Len() == 0 {
		return ""
	}
	return "<w:rPr>" + s.String() + "</w:rPr>"
}

func esc(s string) string {
	var b bytes.Buffer
	// Characters XML 1.0 cannot carry are dropped by EscapeText's caller
	// below; EscapeText itself escapes markup characters.
	xml.EscapeText(&b, []byte(validXML(s)))
	return b.String()
}

// validXML drops characters that are not allowed in XML 1.0.
func validXML(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF) {
			return r
		}
		return -1
	}, s)
}

func (w *docxWriter) addRel(typ, target, mode string) string {
	id := "rId" + strconv.Itoa(len(w.rels)+10) // rId1..9 are the fixed parts
	w.rels = append(w.rels, rel{id, typ, target, mode})
	return id
}

// paraCtx is what a block inside a list item or quote inherits.
type paraCtx struct {
	style string
	numID int
	level int
}

func (w *docxWriter) blocks(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c, paraCtx{})
	}
}

func (w *docxWriter) block(n ast.Node, pc paraCtx) {
	switch n := n.(type) {
	case *ast.Heading:
		w.para(n, paraCtx{style: "Heading" + strconv.Itoa(min(n.Level, 6))})
	case *ast.Paragraph, *ast.TextBlock:
		w.para(n, pc)
	case *ast.List:
		w.list(n, pc)
	case *ast.Blockquote:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c, paraCtx{style: "Quote"})
		}
	case *ast.FencedCodeBlock:
		w.code(n.Lines().Len(), func(i int) string { s := n.Lines().At(i); return string(s.Value(w.src)) })
	case *ast.CodeBlock:
		w.code(n.Lines().Len(), func(i int) string { s := n.Lines().At(i); return string(s.Value(w.src)) })
	case *ast.ThematicBreak:
		w.b.WriteString(`<w:p><w:pPr><w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="999999"/></w:pBdr></w:pPr></w:p>`)
	case *east.Table:
		w.table(n)
	case *ast.HTMLBlock:
		// Raw HTML is off: dropped, as in the HTML output.
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c, pc)
		}
	}
}

func (w *docxWriter) pPr(pc paraCtx) string {
	var s string
	if pc.style != "" {
		s += `<w:pStyle w:val="` + pc.style + `"/>`
	}
	if pc.numID > 0 {
		s += fmt.Sprintf(`<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, pc.level, pc.numID)
	}
	if s == "" {
		return ""
	}
	return "<w:pPr>" + s + "</w:pPr>"
}

func (w *docxWriter) para(n ast.Node, pc paraCtx) {
	w.b.WriteString("<w:p>" + w.pPr(pc))
	w.inlines(n, runProps{})
	w.b.WriteString("</w:p>")
}

func (w *docxWriter) list(n *ast.List, pc paraCtx) {
	level := 0
	if pc.numID > 0 {
		level = min(pc.level+1, 8)
	}
	numID := 1 // bullets
	if n.IsOrdered() {
		w.numbers = append(w.numbers, n.Start)
		numID = len(w.numbers) + 1
	}
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		first := true
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			switch c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				if first {
					w.para(c, paraCtx{style: "ListParagraph", numID: numID, level: level})
				} else {
					w.para(c, paraCtx{style: "ListContinue"})
				}
				first = false
			default:
				w.block(c, paraCtx{style: pc.style, numID: numID, level: level})
			}
		}
	}
}

func (w *docxWriter) code(lines int, line func(int) string) {
	for i := range lines {
		l := strings.TrimRight(line(i), "\r\n")
		w.b.WriteString(`<w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr><w:r><w:t xml:space="preserve">` + esc(l) + "</w:t></w:r></w:p>")
	}
	if lines == 0 {
		w.b.WriteString(`<w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr></w:p>`)
	}
}

func (w *docxWriter) table(t *east.Table) {
	cols := 0
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		cols = max(cols, r.ChildCount())
	}
	if cols == 0 {
		return
	}
	textWidth := w.page.Width - 2*margin
	colW := textWidth / cols
	w.b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="` + strconv.Itoa(textWidth) + `" w:type="dxa"/>` +
		`<w:tblBorders><w:top w:val="single" w:sz="4" w:color="999999"/><w:left w:val="single" w:sz="4" w:color="999999"/>` +
		`<w:bottom w:val="single" w:sz="4" w:color="999999"/><w:right w:val="single" w:sz="4" w:color="999999"/>` +
		`<w:insideH w:val="single" w:sz="4" w:color="999999"/><w:insideV w:val="single" w:sz="4" w:color="999999"/></w:tblBorders>` +
		`<w:tblLook w:val="04A0" w:firstRow="1"/></w:tblPr><w:tblGrid>`)
	for range cols {
		w.b.WriteString(`<w:gridCol w:w="` + strconv.Itoa(colW) + `"/>`)
	}
	w.b.WriteString("</w:tblGrid>")
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		_, header := r.(*east.TableHeader)
		w.b.WriteString("<w:tr>")
		if header {
			w.b.WriteString("<w:trPr><w:tblHeader/></w:trPr>")
		}
		i := 0
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			w.cell(c, colW)
			i++
		}
		for ; i < cols; i++ { // short rows still fill the grid
			w.b.WriteString(`<w:tc><w:tcPr><w:tcW w:w="` + strconv.Itoa(colW) + `" w:type="dxa"/></w:tcPr><w:p/></w:tc>`)
		}
		w.b.WriteString("</w:tr>")
	}
	w.b.WriteString("</w:tbl><w:p/>")
}

func (w *docxWriter) cell(c ast.Node, width int) {
	w.b.WriteString(`<w:tc><w:tcPr><w:tcW w:w="` + strconv.Itoa(width) + `" w:type="dxa"/></w:tcPr><w:p>`)
	if tc, ok := c.(*east.TableCell); ok {
		switch tc.Alignment {
		case east.AlignCenter:
			w.b.WriteString(`<w:pPr><w:jc w:val="center"/></w:pPr>`)
		case east.AlignRight:
			w.b.WriteString(`<w:pPr><w:jc w:val="right"/></w:pPr>`)
		}
	}
	// Header cells are bold through the table style's firstRow rule, so
	// readers see a header row, not bold text.
	w.inlines(c, runProps{})
	w.b.WriteString("</w:p></w:tc>")
}

func (w *docxWriter) run(text string, p runProps) {
	if text == "" {
		return
	}
	w.b.WriteString("<w:r>" + p.xml() + `<w:t xml:space="preserve">` + esc(text) + "</w:t></w:r>")
}

func (w *docxWriter) inlines(n ast.Node, p runProps) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inline(c, p)
	}
}

func (w *docxWriter) inline(n ast.Node, p runProps) {
	switch n := n.(type) {
	case *ast.Text:
		w.run(string(n.Segment.Value(w.src)), p)
		switch {
		case n.HardLineBreak():
			w.b.WriteString("<w:r><w:br/></w:r>")
		case n.SoftLineBreak():
			w.run(" ", p)
		}
	case *ast.String:
		w.run(string(n.Value), p)
	case *ast.Emphasis:
		q := p
		if n.Level >= 2 {
			q.bold = true
		} else {
			q.italic = true
		}
		w.inlines(n, q)
	case *east.Strikethrough:
		q := p
		q.strike = true
		w.inlines(n, q)
	case *ast.CodeSpan:
		q := p
		q.code = true
		w.run(altText(n, w.src), q)
	case *ast.Link:
		w.link(string(n.Destination), func(q runProps) { w.inlines(n, q) }, p)
	case *ast.AutoLink:
		u := string(n.URL(w.src))
		label := string(n.Label(w.src))
		w.link(u, func(q runProps) { w.run(label, q) }, p)
	case *ast.Image:
		w.image(n)
	case *east.TaskCheckBox:
		if n.IsChecked {
			w.run("☒ ", p)
		} else {
			w.run("☐ ", p)
		}
	case *ast.RawHTML:
		// dropped (raw HTML is off)
	default:
		w.inlines(n, p)
	}
}

// link writes a hyperlink to an external target; a link with a scheme we
// do not pass on (javascript:, file:, data:) keeps its text only.
func (w *docxWriter) link(dest string, body func(runProps), p runProps) {
	d := strings.ToLower(strings.TrimSpace(dest))
	if dest == "" || strings.HasPrefix(d, "javascript:") || strings.HasPrefix(d, "vbscript:") ||
		strings.HasPrefix(d, "file:") || strings.HasPrefix(d, "data:") {
		body(p)
		return
	}
	if strings.HasPrefix(dest, "#") {
		w.b.WriteString(`<w:hyperlink w:anchor="` + esc(dest[1:]) + `">`)
	} else {
		id := w.addRel("http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink", dest, "External")
		w.b.WriteString(`<w:hyperlink r:id="` + id + `">`)
	}
	q := p
	q.link = true
	body(q)
	w.b.WriteString("</w:hyperlink>")
}

// image embeds an inline data: image, scaled to fit the text width.
func (w *docxWriter) image(n *ast.Image) {
	data, ext, ctype, ok := decodeDataURL(string(n.Destination))
	if !ok {
		w.run(altText(n, w.src), runProps{})
		return
	}
	wpx, hpx := 0, 0
	if c, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		wpx, hpx = c.Width, c.Height
	} else if ww, hh, ok := webpDims(data); ok {
		wpx, hpx = ww, hh
	} else {
		w.run(altText(n, w.src), runProps{})
		return
	}
	w.images++
	name := fmt.Sprintf("image%d.%s", w.images, ext)
	w.media = append(w.media, media{name, ctype, data})
	id := w.addRel("http://schemas.openxmlformats.org/officeDocument/2006/relationships/image", "media/"+name, "")
	const emuPerPx = 9525
	maxW := int64(w.page.Width-2*margin) * 635 // twips to EMU
	cx, cy := int64(wpx)*emuPerPx, int64(hpx)*emuPerPx
	if cx > maxW && cx > 0 {
		cy = cy * maxW / cx
		cx = maxW
	}
	alt := esc(altText(n, w.src))
	fmt.Fprintf(&w.b, `<w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="%d" cy="%d"/>`+
		`<wp:docPr id="%d" name="Picture %d" descr="%s"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">`+
		`<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">`+
		`<pic:nvPicPr><pic:cNvPr id="%d" name="%s"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="%s"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>`+
		`<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`,
		cx, cy, w.images, w.images, alt, w.images, name, id, cx, cy)
}

// decodeDataURL decodes a base64 data: URL of a kept image type.
func decodeDataURL(u string) (data []byte, ext, ctype string, ok bool) {
	head, payload, found := strings.Cut(u, ",")
	if !found || !DataImage(head) || !strings.HasSuffix(strings.ToLower(head), ";base64") {
		return nil, "", "", false
	}
	ctype = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(head), "data:"), ";base64"))
	if ctype == "image/jpg" {
		ctype = "image/jpeg"
	}
	ext = strings.TrimPrefix(ctype, "image/")
	if ext == "jpeg" {
		ext = "jpg"
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(payload))
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(strings.TrimSpace(payload)); err != nil {
			return nil, "", "", false
		}
	}
	return data, ext, ctype, true
}

// webpDims reads the canvas size of a WebP file.
func webpDims(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8X":
		return 1 + (int(b[24]) | int(b[25])<<8 | int(b[26])<<16), 1 + (int(b[27]) | int(b[28])<<8 | int(b[29])<<16), true
	case "VP8 ":
		return (int(b[26]) | int(b[27])<<8) & 0x3fff, (int(b[28]) | int(b[29])<<8) & 0x3fff, true
	case "VP8L":
		v := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
		return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1, true
	}
	return 0, 0, false
}

// pack writes the zip container.
func (w *docxWriter) pack(opts DOCXOptions) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, body string) error {
		f, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: opts.Now})
		if err != nil {
			return err
		}
		_, err = io.WriteString(f, body)
		return err
	}
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", w.contentTypes()},
		{"_rels/.rels", rootRels},
		{"docProps/core.xml", coreXML(opts)},
		{"docProps/app.xml", appXML},
		{"word/document.xml", w.documentXML()},
		{"word/_rels/document.xml.rels", w.documentRels()},
		{"word/styles.xml", stylesXML},
		{"word/numbering.xml", w.numberingXML()},
		{"word/settings.xml", settingsXML},
	}
	for _, p := range parts {
		if err := add(p.name, p.body); err != nil {
			return nil, err
		}
	}
	for _, m := range w.media {
		f, err := z.CreateHeader(&zip.FileHeader{Name: "word/media/" + m.name, Method: zip.Store, Modified: opts.Now})
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(m.data); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

func (w *docxWriter) contentTypes() string {
	var s strings.Builder
	s.WriteString(xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>`)
	seen := map[string]bool{}
	for _, m := range w.media {
		ext := m.name[strings.LastIndexByte(m.name, '.')+1:]
		if !seen[ext] {
			seen[ext] = true
			s.WriteString(`<Default Extension="` + ext + `" ContentType="` + m.contentType + `"/>`)
		}
	}
	s.WriteString(`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
		`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
		`<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>` +
		`<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>` +
		`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
		`<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>` +
		`</Types>`)
	return s.String()
}

const rootRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>` +
	`</Relationships>`

func coreXML(opts DOCXOptions) string {
	ts := opts.Now.UTC().Format("2006-01-02T15:04:05Z")
	return xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
		`xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ` +
		`xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>` + esc(opts.Title) + `</dc:title><dc:creator>openshelf render_document</dc:creator>` +
		`<dcterms:created xsi:type="dcterms:W3CDTF">` + ts + `</dcterms:created>` +
		`<dcterms:modified xsi:type="dcterms:W3CDTF">` + ts + `</dcterms:modified></cp:coreProperties>`
}

const appXML = xmlHeader + `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>openshelf</Application></Properties>`

const settingsXML = xmlHeader + `<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:defaultTabStop w:val="720"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`

func (w *docxWriter) documentXML() string {
	return xmlHeader + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
		`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ` +
		`xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ` +
		`xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ` +
		`xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>` +
		w.b.String() +
		fmt.Sprintf(`<w:sectPr><w:pgSz w:w="%d" w:h="%d"/><w:pgMar w:top="%d" w:right="%d" w:bottom="%d" w:left="%d" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`,
			w.page.Width, w.page.Height, margin, margin, margin, margin) +
		`</w:body></w:document>`
}

func (w *docxWriter) documentRels() string {
	var s strings.Builder
	s.WriteString(xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
		`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>` +
		`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/>`)
	for _, r := range w.rels {
		mode := ""
		if r.mode != "" {
			mode = ` TargetMode="` + r.mode + `"`
		}
		var t bytes.Buffer
		xml.EscapeText(&t, []byte(r.target))
		s.WriteString(`<Relationship Id="` + r.id + `" Type="` + r.typ + `" Target="` + strings.ReplaceAll(t.String(), `"`, "&quot;") + `"` + mode + `/>`)
	}
	s.WriteString("</Relationships>")
	return s.String()
}

// numberingXML: abstract 0 is bullets, abstract 1 decimal numbers; num 1
// uses bullets, and each ordered list has its own num (2, 3, ...) so its
// numbering starts again at its own start value.
func (w *docxWriter) numberingXML() string {
	var s strings.Builder
	s.WriteString(xmlHeader + `<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`)
	bullets := []string{"•", "◦", "▪"}
	s.WriteString(`<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="hybridMultilevel"/>`)
	for l := range 9 {
		fmt.Fprintf(&s, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="%s"/><w:lvlJc w:val="left"/>`+
			`<w:pPr><w:ind w:left="%d" w:hanging="360"/></w:pPr></w:lvl>`, l, bullets[l%3], 720*(l+1))
	}
	s.WriteString(`</w:abstractNum><w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="hybridMultilevel"/>`)
	for l := range 9 {
		fmt.Fprintf(&s, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%%%d."/><w:lvlJc w:val="left"/>`+
			`<w:pPr><w:ind w:left="%d" w:hanging="360"/></w:pPr></w:lvl>`, l, l+1, 720*(l+1))
	}
	s.WriteString(`</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>`)
	for i, start := range w.numbers {
		fmt.Fprintf(&s, `<w:num w:numId="%d"><w:abstractNumId w:val="1"/>`, i+2)
		for l := range 9 {
			st := 1
			if l == 0 {
				st = start
			}
			fmt.Fprintf(&s, `<w:lvlOverride w:ilvl="%d"><w:startOverride w:val="%d"/></w:lvlOverride>`, l, st)
		}
		s.WriteString(`</w:num>`)
	}
	s.WriteString(`</w:numbering>`)
	return s.String()
}

var stylesXML = xmlHeader + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/><w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault>` +
	`<w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="276" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>` +
	`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:rPr><w:sz w:val="56"/></w:rPr></w:style>` +
	heading(1, 36) + heading(2, 30) + heading(3, 26) + heading(4, 24) + heading(5, 22) + heading(6, 22) +
	`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="40"/><w:contextualSpacing/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="ListContinue"><w:name w:val="List Continue"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720"/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:ind w:left="720"/><w:pBdr><w:left w:val="single" w:sz="12" w:space="8" w:color="CCCCCC"/></w:pBdr></w:pPr><w:rPr><w:i/><w:color w:val="444444"/></w:rPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Code"><w:name w:val="Code"/><w:basedOn w:val="Normal"/><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/><w:shd w:val="clear" w:color="auto" w:fill="F4F4F4"/></w:pPr><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"/><w:sz w:val="20"/></w:rPr></w:style>` +
	`<w:style w:type="character" w:default="1" w:styleId="DefaultParagraphFont"><w:name w:val="Default Paragraph Font"/></w:style>` +
	`<w:style w:type="character" w:styleId="CodeChar"><w:name w:val="Verbatim Char"/><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"/><w:sz w:val="20"/><w:shd w:val="clear" w:color="auto" w:fill="F4F4F4"/></w:rPr></w:style>` +
	`<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style>` +
	`<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>` +
	`<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:basedOn w:val="TableNormal"/><w:tblStylePr w:type="firstRow"><w:rPr><w:b/></w:rPr><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="EEEEEE"/></w:tcPr></w:tblStylePr></w:style>` +
	`</w:styles>`

func heading(level, halfPoints int) string {
	return fmt.Sprintf(`<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>`+
		`<w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="%d"/></w:pPr><w:rPr><w:b/><w:sz w:val="%d"/></w:rPr></w:style>`,
		level, level, level-1, halfPoints)
}
