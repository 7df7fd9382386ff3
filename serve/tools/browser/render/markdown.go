package render

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// md is safe for concurrent use. html.WithUnsafe is deliberately not set.
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Parse parses Markdown into goldmark's AST; source is needed to read
// text segments. Images whose source is not an inline data: image are
// replaced by their alt text.
func Parse(markdown string) (ast.Node, []byte) {
	src := []byte(markdown)
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext()))
	var images []*ast.Image
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering && !DataImage(string(img.Destination)) {
			images = append(images, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		alt := ast.NewString([]byte(altText(img, src)))
		if p := img.Parent(); p != nil {
			p.ReplaceChild(p, img, alt)
		}
	}
	return doc, src
}

// DataImage reports whether dest is an inline image we keep.
func DataImage(dest string) bool {
	d := strings.ToLower(dest)
	for _, t := range []string{"data:image/png", "data:image/jpeg", "data:image/jpg", "data:image/gif", "data:image/webp"} {
		if strings.HasPrefix(d, t) {
			return true
		}
	}
	return false
}

func altText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// HTMLOptions dress the HTML document.
type HTMLOptions struct {
	Title string
	// CSS is the caller's stylesheet, appended after the default one.
	CSS string
	// PageSize is the CSS @page size (A4, Letter, Legal); "" leaves it out.
	PageSize string
}

// csp forbids every load but inline styles and data: images and fonts.
const csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:"

const baseCSS = `body{font-family:"DejaVu Sans",Arial,sans-serif;line-height:1.5;max-width:52em;margin:0 auto;padding:1em;color:#111}
h1,h2,h3,h4,h5,h6{line-height:1.25;margin:1.2em 0 .5em}
pre,code{font-family:"DejaVu Sans Mono",monospace;font-size:.9em;background:#f4f4f4}
pre{padding:.6em;overflow-x:auto;white-space:pre-wrap}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #999;padding:.3em .6em}th{background:#eee}
blockquote{margin:1em 0;padding-left:1em;border-left:3px solid #ccc;color:#444}
img{max-width:100%}`

// HTML renders Markdown as a complete HTML5 document.
func HTML(markdown string, opts HTMLOptions) ([]byte, error) {
	doc, src := Parse(markdown)
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, src, doc); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + csp + "\">\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	title := opts.Title
	if title == "" {
		title = "Document"
	}
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n<style>\n" + baseCSS + "\n")
	if opts.PageSize != "" {
		b.WriteString("@page{size:" + opts.PageSize + "}\n")
	}
	b.WriteString("</style>\n")
	if opts.CSS != "" {
		// "<" never has a meaning in CSS outside strings, where the escape
		// \3c means the same; so "</style>" cannot end the element early.
		b.WriteString("<style>\n" + strings.ReplaceAll(opts.CSS, "<", `\3c `) + "\n</style>\n")
	}
	b.WriteString("</head><body>\n")
	b.Write(body.Bytes())
	b.WriteString("</body></html>\n")
	return b.Bytes(), nil
}
