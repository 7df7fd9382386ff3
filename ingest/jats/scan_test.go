package jats

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// scanAll renders the token stream of in: "<name a=v>", "</name>" and text,
// with adjacent text merged (the scanner may split long runs).
func scanAll(r io.Reader, maxTok int) (string, error) {
	var s scanner
	s.reset(context.Background(), r, maxTok, 256)
	if err := s.start(); err != nil {
		return "", err
	}
	var b strings.Builder
	for {
		if err := s.next(); err != nil {
			return b.String(), err
		}
		switch s.kind {
		case tokEOF:
			return b.String(), nil
		case tokStart:
			b.WriteString("<" + qname(s.prefix, s.local))
			for _, a := range s.attributes() {
				b.WriteString(" " + qname(a.prefix, a.local) + "=" + string(appendUnescaped(nil, a.val)))
			}
			b.WriteString(">")
		case tokEnd:
			b.WriteString("</" + qname(s.prefix, s.local) + ">")
		case tokText:
			b.Write(s.text)
		}
	}
}

func qname(prefix, local []byte) string {
	if len(prefix) > 0 {
		return string(prefix) + ":" + string(local)
	}
	return string(local)
}

// stdTokens renders in the same way with encoding/xml (strict), the
// reference for well-formed input.
func stdTokens(in []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(in))
	d.Entity = xml.HTMLEntity
	var b strings.Builder
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			b.WriteString("<" + stdName(tok.Name))
			for _, a := range tok.Attr {
				b.WriteString(" " + stdName(a.Name) + "=" + a.Value)
			}
			b.WriteString(">")
		case xml.EndElement:
			b.WriteString("</" + stdName(tok.Name) + ">")
		case xml.CharData:
			b.Write(tok)
		}
	}
}

func stdName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// TestScannerMatchesEncodingXML compares the token streams of every
// fixture with encoding/xml's, reading whole and one byte at a time.
func TestScannerMatchesEncodingXML(t *testing.T) {
	for i, path := range fixtureFiles(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := stdTokens(in)
		if err != nil {
			t.Fatalf("%s: encoding/xml: %v", path, err)
		}
		// encoding/xml turns \r\n into \n in text; the scanner keeps bytes
		// but drops white space before the first markup.
		want = strings.ReplaceAll(want, "\r\n", "\n")
		if lead := len(in) - len(bytes.TrimLeft(in, " \t\r\n")); lead > 0 {
			want = want[lead:]
		}
		got, err := scanAll(bytes.NewReader(in), defaultMaxToken)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got = strings.ReplaceAll(got, "\r\n", "\n"); got != want {
			t.Errorf("%s: streams differ at byte %d", path, firstDiff(got, want))
			continue
		}
		// Refill paths: a few files one byte at a time, with a small buffer.
		if i%8 == 0 {
			slow, err := scanAll(iotest.OneByteReader(bytes.NewReader(in)), minBuf)
			if err != nil {
				t.Fatalf("%s one byte at a time: %v", path, err)
			}
			if slow = strings.ReplaceAll(slow, "\r\n", "\n"); slow != want {
				t.Errorf("%s one byte at a time: streams differ at byte %d", path, firstDiff(slow, want))
			}
		}
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestScannerLenient(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"entities", `<a t="x&amp;y&#x41;&eacute;">&lt;&gt;&amp;&quot;&apos;&#65;&#x263A;&nbsp;&copy;</a>`, "<a t=x&yAé><>&\"'A☺\u00a0©</a>"},
		{"unknown entity stays", `<a>&bogus; &amp &#xZZ; &#0;</a>`, "<a>&bogus; &amp &#xZZ; \uFFFD</a>"},
		{"cdata", `<a><![CDATA[<b>&amp;</b>]]></a>`, "<a><b>&amp;</b></a>"},
		{"comment and pi", `<a><!-- <b> -->x<?pi <b>?>y</a>`, "<a>xy</a>"},
		{"doctype subset", `<!DOCTYPE a [ <!ENTITY e "]>"> ]><a/>`, "<a></a>"},
		{"stray lt", `<a>1 < 2</a>`, "<a>1 < 2</a>"},
		{"gt in attribute", `<a t="1>0" u='it"s'>x</a>`, "<a t=1>0 u=it\"s>x</a>"},
		{"unquoted and bare attributes", `<a t=1 checked u = "2">x</a>`, "<a t=1 checked= u=2>x</a>"},
		{"apostrophe outside a value", `<a b'c="1">x</a>`, "<a b'c=1>x</a>"},
		{"autoclose", `<a><b><c>x</a>`, "<a><b><c>x</c></b></a>"},
		{"unmatched end dropped", `<a>x</b>y</a>`, "<a>xy</a>"},
		{"self closing", `<a><b/><c x="1"/></a>`, "<a><b></b><c x=1></c></a>"},
		{"prefixes", `<j:a xmlns:j="u"><j:b xlink:href="h"/></j:a>`, "<j:a xmlns:j=u><j:b xlink:href=h></j:b></j:a>"},
		{"lone lt at end", `<a></a><`, "<a></a><"},
		{"empty prefix or local name", `<a><b:>x</b:><:c :d="1"/><:></:></a>`, "<a><b:>x</b:><:c :d=1></:c><:></:></a>"},
		// An end tag's name is trimmed and ends at the first '>': these
		// match no open element and are dropped.
		{"end tag trimmed", "<a><b\v>x</b\v>y</a>", "<a><b\v>xy</b\v></a>"},
		{"end tag trimmed of U+00A0", "<a><\u00a0b>x</\u00a0b>y</a>", "<a><\u00a0b>xy</\u00a0b></a>"},
		{"gt in a name", `<a><b=">"c>x</b=">"c>y</a>`, `<a><b=">"c>x"c>y</b=">"c></a>`},
		{"end tag with space", `<a><b>x</b >y</ a>`, "<a><b>x</b>y</a>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanAll(strings.NewReader(tt.in), defaultMaxToken)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
}

func TestScannerLimitsAndChunks(t *testing.T) {
	// A text run far larger than the buffer, with entities everywhere, is
	// handed out in pieces without cutting a reference in two.
	var in, want strings.Builder
	in.WriteString("<a>")
	want.WriteString("<a>")
	for i := 0; i < 20000; i++ {
		in.WriteString("x&amp;&#233;")
		want.WriteString("x&é")
	}
	in.WriteString("</a>")
	want.WriteString("</a>")
	got, err := scanAll(iotest.HalfReader(strings.NewReader(in.String())), minBuf)
	if err != nil || got != want.String() {
		t.Errorf("long text: %v, match %v", err, got == want.String())
	}

	tests := []struct {
		name, in string
		want     error
	}{
		{"huge tag", `<a t="` + strings.Repeat("v", 3*minBuf) + `"/>`, ErrLimit},
		{"huge comment", `<a><!--` + strings.Repeat("c", 3*minBuf) + `--></a>`, ErrLimit},
		{"deep", strings.Repeat("<a>", 257), ErrLimit},
		{"eof in element", `<a><b>text`, ErrSyntax},
		{"eof in tag", `<a><b t="1`, ErrSyntax},
		{"eof in cdata", `<a><![CDATA[x`, ErrSyntax},
		{"eof in doctype", `<!DOCTYPE a [ <!ENTITY x "y">`, ErrSyntax},
		{"eof in pi", `<?xml version="1.0"`, ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := scanAll(strings.NewReader(tt.in), minBuf); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// tagEnd finds the '>' that ends the start tag at the beginning of b
// byte by byte, as scanStartTag once did: outside values quoted right
// after '='. It returns -1 when b ends first.
func tagEnd(b []byte) int {
	var quote byte
	afterEq := false
	for i := 1; i < len(b); i++ {
		c := b[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '>':
			return i
		case '=':
			afterEq = true
		case '"', '\'':
			if afterEq {
				quote = c
			}
			afterEq = false
		case ' ', '\t', '\n', '\r':
		default:
			afterEq = false
		}
	}
	return -1
}

// FuzzStartTag checks where the scanner ends a start tag against tagEnd,
// with the input whole and one byte per read.
func FuzzStartTag(f *testing.F) {
	for _, s := range []string{
		`a>`, `a b="c>d">`, `a b = 'c"d'>x`, `a b="c`, `a "b>`, `a b= "c>" d='>'>`, `a b=c"d>`, `a b="x" 'c>`,
		`ext-link ext-link-type="uri" xlink:href="https://example.org/?a=b&amp;c>d">text`,
		`a/>`, `a/b>`, `a />`, `a:b/>x`, `a=">"b>`, `a'b>`, `a/`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tail []byte) {
		in := append([]byte("<"), tail...)
		if len(tail) == 0 || !isNameStart(tail[0]) {
			return
		}
		end := tagEnd(in)
		for _, r := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in))} {
			var s scanner
			s.reset(context.Background(), r, 1<<20, 64)
			err := s.next()
			if end < 0 {
				if err == nil || !strings.Contains(err.Error(), "unterminated start tag") {
					t.Fatalf("%q: %v, want unterminated", in, err)
				}
				continue
			}
			if err != nil || s.kind != tokStart || s.offset() != int64(end+1) {
				t.Fatalf("%q: %v kind %d at %d, want a start tag ending at %d", in, err, s.kind, s.offset(), end)
			}
		}
	})
}

// An XML declaration is read for its encoding up to maxDecl bytes, however
// the input arrives: a longer one names none, read whole or a byte at a
// time (FuzzScanChunks found the two disagreeing).
func TestLongDeclaration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		padding int
		wantErr error
	}{
		{"short", 0, ErrEncoding},
		{"long", maxDecl, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `<?xml version="1.0"` + strings.Repeat(" ", tc.padding) + ` encoding="latin-9x"?><article/>`
			whole, err1 := scanAll(strings.NewReader(in), 1<<20)
			bytewise, err2 := scanAll(iotest.OneByteReader(strings.NewReader(in)), minBuf)
			if !errors.Is(err1, tc.wantErr) || !errors.Is(err2, tc.wantErr) {
				t.Fatalf("errors %v / %v, want %v", err1, err2, tc.wantErr)
			}
			if whole != bytewise {
				t.Errorf("streams differ: %q / %q", whole, bytewise)
			}
		})
	}
}
