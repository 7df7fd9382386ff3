package tables

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

// docServer serves the PDF, its HTML source and some bad documents.
func docServer(t *testing.T, pdf []byte, html string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/report.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(pdf)
		case "/download":
			// No useful type: sniffed from the bytes.
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(pdf)
		case "/report.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(html))
		case "/huge.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			chunk := bytes.Repeat([]byte("0"), 1<<20)
			w.Write([]byte("%PDF-1.7\n"))
			for range 11 {
				w.Write(chunk)
			}
		case "/broken.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
		case "/image.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// callTables runs extract_tables the way the server does: decode and
// validate the JSON body, the pre-payment check, then the handler.
func callTables(t *testing.T, p *Tool, body string) (*Output, error) {
	t.Helper()
	ep := p.Endpoint()
	in := ep.NewInput()
	if err := ep.Input.DecodeJSON(in, []byte(body), nil); err != nil {
		return nil, err
	}
	if err := ep.Check(context.Background(), in); err != nil {
		return nil, err
	}
	res, err := ep.Handle(context.Background(), in)
	if err != nil {
		return nil, err
	}
	return res.Value.(*Output), nil
}

func TestExtractTablesPDF(t *testing.T) {
	doc := webtest.TablesDoc()
	pdf := webtest.PrintToPDF(t, doc)
	srv := docServer(t, pdf, doc)
	p := newLoopbackTool(t, fetch.Config{MaxBytes: 64 << 20})

	out, err := callTables(t, p, `{"url":"`+siteURL(srv)+`/report.pdf"}`)
	if err != nil {
		t.Fatal(err)
	}
	if out.Type != "pdf" || out.PageCount != 32 || !slices.Equal(out.Pages, seq(1, 30)) {
		t.Fatalf("type %q page_count %d pages %v", out.Type, out.PageCount, out.Pages)
	}
	if len(out.Tables) != 3 {
		for _, tb := range out.Tables {
			t.Logf("table p%d %s %q %q", tb.Page, tb.Method, tb.Columns, tb.Rows)
		}
		t.Fatalf("got %d tables, want 3 (ruled, aligned, ruled on page 2)", len(out.Tables))
	}

	ruled := out.Tables[0]
	if ruled.Page != 1 || ruled.Method != "ruled" || ruled.Caption != "Table 1: Quarterly sales by region" {
		t.Errorf("first table: page %d method %q caption %q", ruled.Page, ruled.Method, ruled.Caption)
	}
	if want := []string{"Region", "2024 / Q1", "2024 / Q2"}; !slices.Equal(ruled.Columns, want) {
		t.Errorf("ruled columns %q, want %q", ruled.Columns, want)
	}
	wantRows := [][]string{{"North", "10", "12"}, {"South", "not reported", "not reported"}, {"East", "", "4"}}
	if !equalRows(ruled.Rows, wantRows) {
		t.Errorf("ruled rows %q, want %q", ruled.Rows, wantRows)
	}
	if ruled.Records[0]["2024 / Q2"] != "12" {
		t.Errorf("records %v", ruled.Records)
	}

	aligned := out.Tables[1]
	if aligned.Page != 1 || aligned.Method != "aligned" {
		t.Errorf("second table: page %d method %q", aligned.Page, aligned.Method)
	}
	if want := []string{"Item", "Count", "Share"}; !slices.Equal(aligned.Columns, want) {
		t.Errorf("aligned columns %q", aligned.Columns)
	}
	wantRows = [][]string{{"Widgets large", "1,200", "45.5%"}, {"Gadgets", "87", "3.2%"},
		{"Sprockets", "15,003", "51.3%"}, {"Bücher & Co", "4", "0.0%"}}
	if !equalRows(aligned.Rows, wantRows) {
		t.Errorf("aligned rows %q, want %q", aligned.Rows, wantRows)
	}

	second := out.Tables[2]
	if second.Page != 2 || !slices.Equal(second.Columns, []string{"Code", "Name"}) ||
		!equalRows(second.Rows, [][]string{{"A1", "Alpha"}, {"B2", "Beta"}}) {
		t.Errorf("page 2 table: %+v", second)
	}
	for i, tb := range out.Tables {
		if tb.Index != i {
			t.Errorf("table %d has index %d", i, tb.Index)
		}
	}

	// Pages past the default 30 by selection, and the sniffed download.
	out, err = callTables(t, p, `{"url":"`+siteURL(srv)+`/download","pages":"31-"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Pages, []int{31, 32}) || len(out.Tables) != 1 || out.Tables[0].Page != 32 ||
		!equalRows(out.Tables[0].Rows, [][]string{{"thirty", "two"}}) {
		t.Errorf("pages 31-: pages %v tables %+v", out.Pages, out.Tables)
	}

	out, err = callTables(t, p, `{"url":"`+siteURL(srv)+`/report.pdf","pages":"1","max_tables":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Tables) != 1 || !out.Truncated {
		t.Errorf("max_tables 1: %d tables, truncated %v", len(out.Tables), out.Truncated)
	}

	// The same document as HTML gives the same tables plus exact structure.
	out, err = callTables(t, p, `{"url":"`+siteURL(srv)+`/report.html"}`)
	if err != nil {
		t.Fatal(err)
	}
	if out.Type != "html" || len(out.Tables) != 4 || !slices.Equal(out.Tables[0].Columns, []string{"Region", "2024 / Q1", "2024 / Q2"}) {
		t.Errorf("html: type %q, %d tables, first %q", out.Type, len(out.Tables), out.Tables[0].Columns)
	}
}

func TestExtractTablesErrors(t *testing.T) {
	srv := docServer(t, []byte("%PDF-1.4\n"), "<p>no tables</p>")
	p := newLoopbackTool(t, fetch.Config{MaxBytes: 64 << 20})
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"too large", `{"url":"` + siteURL(srv) + `/huge.pdf"}`, http.StatusRequestEntityTooLarge, "too_large"},
		{"unreadable", `{"url":"` + siteURL(srv) + `/broken.pdf"}`, http.StatusBadRequest, "unreadable_pdf"},
		{"not a document", `{"url":"` + siteURL(srv) + `/image.png"}`, http.StatusBadRequest, "unsupported_content_type"},
		{"missing", `{"url":"` + siteURL(srv) + `/nope"}`, http.StatusBadGateway, "upstream_status"},
		{"too many pages", `{"url":"` + siteURL(srv) + `/report.pdf","pages":"1-31"}`, http.StatusBadRequest, "invalid_input"},
		{"bad pages", `{"url":"` + siteURL(srv) + `/report.pdf","pages":"3-1"}`, http.StatusBadRequest, "invalid_input"},
		{"no url", `{}`, http.StatusBadRequest, "invalid_input"},
		{"private literal", `{"url":"http://192.168.1.1/x.pdf"}`, http.StatusBadRequest, "invalid_input"},
		{"max tables", `{"url":"` + siteURL(srv) + `/report.pdf","max_tables":0}`, http.StatusBadRequest, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := callTables(t, p, tt.body)
			if err == nil {
				t.Fatalf("want an error, got %+v", out)
			}
			e := apierr.From(err)
			if e.Status != tt.status || e.Code != tt.code {
				t.Errorf("got %d %s (%v), want %d %s", e.Status, e.Code, err, tt.status, tt.code)
			}
		})
	}
	out, err := callTables(t, p, `{"url":"`+siteURL(srv)+`/report.html"}`)
	if err != nil || out.Type != "html" || len(out.Tables) != 0 {
		t.Errorf("page without tables: %+v, %v", out, err)
	}
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), `"tables":[]`) {
		t.Errorf("tables must encode as an empty list: %s", b)
	}
}

func equalRows(got, want [][]string) bool {
	return slices.EqualFunc(got, want, func(a, b []string) bool { return slices.Equal(a, b) })
}

// buildPDF assembles a PDF from object bodies (object i+1 is objs[i]) with
// a correct xref table; trailer is added to the trailer dictionary.
func buildPDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	trailer = strings.ReplaceAll(trailer, "XREF", fmt.Sprint(xref))
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

// TestHostilePDFs: structures that would make the pdf package loop for
// ever end with an error, and a plain hand-made PDF with a simple font
// still reads.
func TestHostilePDFs(t *testing.T) {
	content := "BT /F1 12 Tf 72 700 Td (Name) Tj 100 0 Td (Qty) Tj ET\n" +
		"BT /F1 12 Tf 72 680 Td (Apple) Tj 100 0 Td (3) Tj ET\n" +
		"BT /F1 12 Tf 72 660 Td (Pear) Tj 100 0 Td (12) Tj ET\n" +
		"BT /F1 12 Tf 72 640 Td (Plum) Tj 100 0 Td (7) Tj ET\n"
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	page := func(parent string) string {
		return "<< /Type /Page /Parent " + parent + " /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
	}
	stream := fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(content), content)
	tests := []struct {
		name   string
		pdf    []byte
		tables int // -1: an error is expected
	}{
		{"plain", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page("2 0 R"), font, stream,
		}, ""), 1},
		{"cyclic page tree", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 5 >>", page("2 0 R"), font, stream,
		}, ""), -1},
		{"cyclic parent chain", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 6 0 R /Contents 5 0 R >>", font, stream, "<< /Parent 6 0 R >>",
		}, ""), -1},
		{"cyclic xref prev", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page("2 0 R"), font, stream,
		}, "/Prev XREF"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := extractPDFTables(ctx, tt.pdf, nil, 10)
			if ctx.Err() != nil {
				t.Fatal("extraction ran until the deadline")
			}
			if tt.tables < 0 {
				if err == nil {
					t.Errorf("want an error, got %d tables", len(res.tables))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.tables) != tt.tables {
				t.Errorf("got %d tables, want %d", len(res.tables), tt.tables)
			}
			if tt.tables == 1 && !equalRows(res.tables[0].Rows, [][]string{{"Apple", "3"}, {"Pear", "12"}, {"Plum", "7"}}) {
				t.Errorf("rows %q", res.tables[0].Rows)
			}
		})
	}
}
