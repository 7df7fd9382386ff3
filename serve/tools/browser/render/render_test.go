package render

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

const sample = "# Title & <more>\n\nText with **bold**, *it*, `code`, [a link](https://example.com/?a=1&b=2) and <b>raw</b>.\n\n" +
	"| h1 | h2 | h3 |\n|:--|:-:|--:|\n| a | b |\n\n- x\n  1. y\n  2. z\n- [ ] task\n\n```\nif a < b {}\n```\n\n---\n\n> quote\n\n" +
	"![alt](https://example.com/x.png) ![bad](data:image/svg+xml;base64,PHN2Zy8+)\n\nctrl\x01char\n"

// TestDOCXWellFormed parses every XML part and checks the pieces Word and
// pandoc rely on.
func TestDOCXWellFormed(t *testing.T) {
	b, err := DOCX(sample, DOCXOptions{Title: "T <1>", Page: Legal, Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{}
	for _, f := range z.File {
		r, _ := f.Open()
		data, _ := io.ReadAll(r)
		r.Close()
		parts[f.Name] = string(data)
		if strings.HasSuffix(f.Name, ".xml") || strings.HasSuffix(f.Name, ".rels") {
			d := xml.NewDecoder(bytes.NewReader(data))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("%s is not well-formed: %v", f.Name, err)
				}
			}
		}
	}
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml",
		"word/numbering.xml", "word/_rels/document.xml.rels", "docProps/core.xml"} {
		if _, ok := parts[name]; !ok {
			t.Errorf("missing part %s", name)
		}
	}
	doc := parts["word/document.xml"]
	for _, want := range []string{
		`<w:pStyle w:val="Heading1"/>`, "Title &amp; </w:t>", // "<more>" is raw HTML: dropped
		`<w:gridCol w:w="3120"/><w:gridCol w:w="3120"/><w:gridCol w:w="3120"/>`, // three columns of the 9360-twip text width
		`<w:jc w:val="center"/>`, `<w:jc w:val="right"/>`, `<w:tblHeader/>`,
		`<w:pgSz w:w="12240" w:h="20160"/>`, "if a &lt; b {}", "☐ </w:t>", `<w:ilvl w:val="1"/>`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document.xml lacks %s", want)
		}
	}
	for _, bad := range []string{"<b>raw</b>", "\x01", "svg"} {
		if strings.Contains(doc, bad) {
			t.Errorf("document.xml contains %q", bad)
		}
	}
	if !strings.Contains(parts["word/_rels/document.xml.rels"], `Target="https://example.com/?a=1&amp;b=2" TargetMode="External"`) {
		t.Errorf("hyperlink relationship: %s", parts["word/_rels/document.xml.rels"])
	}
	if !strings.Contains(parts["docProps/core.xml"], "<dc:title>T &lt;1&gt;</dc:title>") {
		t.Errorf("core title")
	}
}

func TestHTMLKeepsOnlyDataImages(t *testing.T) {
	b, err := HTML("![remote](https://example.com/x.png) ![inline](data:image/png;base64,iVBORw0KGgo=)", HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "example.com") || !strings.Contains(s, `src="data:image/png;base64,iVBORw0KGgo="`) || !strings.Contains(s, "remote") {
		t.Errorf("html:\n%s", s)
	}
	if !strings.Contains(s, "default-src 'none'") {
		t.Errorf("no CSP")
	}
}
