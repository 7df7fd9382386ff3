package jats

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"
)

// captureBoth reads the first element of in with captureText, and again
// by capturing it into a tree and flattening that, as captureText once
// did; it reports both results, and for paragraphs (skipInParaCapture)
// the tables each left in p.tmp.
func captureBoth(t *testing.T, in []byte, maxData int, skip func([]byte) bool, skipText func(string) bool) (got, want string) {
	t.Helper()
	read := func(stream bool) string {
		p := &parser{names: interner{m: make(map[string]string)}}
		p.tmp.names, p.tmp.maxData = &p.names, maxData
		p.s.reset(context.Background(), bytes.NewReader(in), 1<<20, 64)
		if err := p.s.start(); err != nil {
			return "start: " + err.Error()
		}
		for p.s.kind != tokStart {
			if err := p.s.next(); err != nil {
				return "next: " + err.Error()
			}
			if p.s.kind == tokEOF {
				return "no element"
			}
		}
		var (
			text string
			err  error
		)
		if stream {
			text, err = p.captureText(skip, skipText)
		} else {
			p.tmp.reset()
			var n int32
			if n, err = p.tmp.capture(&p.s, skip); err == nil {
				text = p.tmp.text(n, skipText)
			}
		}
		if err != nil {
			return "error: " + err.Error()
		}
		// What follows the element is still to be read.
		var after string
		if err := p.s.next(); err == nil && p.s.kind == tokText {
			after = string(p.s.text)
		}
		out := fmt.Sprintf("%q after %q", text, after)
		if reflect.ValueOf(skip).Pointer() == reflect.ValueOf(skipInParaCapture).Pointer() {
			out += fmt.Sprintf(" tables %v %+v", p.tmp.hasTables(), readTables(&p.tmp, 0, nil))
		}
		return out
	}
	return read(true), read(false)
}

func TestCaptureText(t *testing.T) {
	for _, in := range []string{
		`<p>plain text</p>`,
		`<p>H<sub>2</sub>O and <italic>in situ</italic>, <bold>bold</bold>.</p>`,
		`<p>  spaced   out
	text&#160;with&nbsp;entities &amp; more  </p>`,
		`<p>a<list><list-item><p>one</p></list-item><list-item><p>two</p></list-item></list>b</p>`,
		`<p>see <xref ref-type="bibr" rid="B1">[1]</xref>, <fig id="f"><caption><p>hidden</p></caption></fig> after</p>`,
		`<p>before<table-wrap id="T1"><label>Table 1</label><caption><p>Cap</p></caption><table><tbody><tr><td>1</td><td>2 mg</td></tr></tbody></table><table-wrap-foot><fn><p>note</p></fn></table-wrap-foot></table-wrap>after<fn><p>x</p></fn>.</p>`,
		`<p>a<!-- comment -->b<![CDATA[c <d>]]>e<?pi x?>f</p>`,
		`<title>A <xref>1</xref> title<fn><p>note</p></fn> (<italic>x</italic>)</title>`,
		`<p>x<table-wrap-group><table-wrap><table><tr><td>a</td></tr></table></table-wrap></table-wrap-group>y</p>`,
		`<p>open <sec>never closed`,
		`<p attr="` + string(bytes.Repeat([]byte("v"), 300)) + `">short</p>`,
		`<p>` + string(bytes.Repeat([]byte("<italic>w</italic> "), 200)) + `</p>`,
		`<p>t<table-wrap a="` + string(bytes.Repeat([]byte("&amp;"), 100)) + `"><table><tr><td>` + string(bytes.Repeat([]byte("z"), 400)) + `</td></tr></table></table-wrap></p>`,
		// Names with an empty local part or prefix (not namespace-well-formed).
		`<p>a<b:>x</b:>y<:>z</:>w<b:/>v<:i>u</:i><italic b:="1">t</italic></p>`,
	} {
		for _, maxData := range []int{1 << 20, 256} {
			for _, mode := range []struct {
				skip     func([]byte) bool
				skipText func(string) bool
			}{{skipInParaCapture, skipTableText}, {skipInPara, skipInTitle}} {
				got, want := captureBoth(t, []byte(in), maxData, mode.skip, mode.skipText)
				if got != want {
					t.Errorf("%.60s (max %d):\n got %s\nwant %s", in, maxData, got, want)
				}
			}
		}
	}
}

// FuzzCaptureText checks captureText against capturing a tree and
// flattening it.
func FuzzCaptureText(f *testing.F) {
	seeds(f)
	f.Add([]byte(`<p>a<table-wrap><table><tr><td>1</td></tr></table></table-wrap><xref>b</xref> c</p>`))
	f.Add([]byte(`<p>a<b:>x</b:>y<:>z</:></p>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, maxData := range []int{1 << 20, 64} {
			got, want := captureBoth(t, in, maxData, skipInParaCapture, skipTableText)
			if got != want {
				t.Fatalf("max %d:\n got %s\nwant %s", maxData, got, want)
			}
			got, want = captureBoth(t, in, maxData, skipInPara, skipInTitle)
			if got != want {
				t.Fatalf("title, max %d:\n got %s\nwant %s", maxData, got, want)
			}
		}
	})
}

// FuzzClean checks clean's eight-bytes-at-a-time test against its
// definition.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"", "a b", "a  b", "abcdefg  hijklmn", "abcdefgh ijklmnop", "abcdefg\x20\x20hijklmnop",
		"abcdefgh  ijklmnop", "abcdefgX ", "seven c  eightttt", "no\u00a0break here please",
		"tab\there and more text", "\x7f\x80\xff\xc3\xa9 plain  ", "           ", "a b c d e f g h i j k l m",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := !bytes.Contains(b, []byte("  "))
		for _, c := range b {
			if c < 0x20 || c == 0xc2 {
				want = false
			}
		}
		if got := clean(b); got != want {
			t.Fatalf("clean(%q) = %v, want %v", b, got, want)
		}
	})
}

// FuzzWriteKnown checks that clean text of any length, which flush sends
// down write's fast path, is written as the general loop writes it, from
// any state of the flattener.
func FuzzWriteKnown(f *testing.F) {
	for _, s := range []string{"", "a", " ", "a ", " a", "a b", ", x", "(a) b.", "\x7f\xc3\xa9 é", "0123456789abcdefgh ij"} {
		f.Add("x", []byte(s), false, false)
		f.Add("(", []byte(s), true, true)
		f.Add("", []byte(s), false, true)
	}
	f.Fuzz(func(t *testing.T, prefix string, b []byte, hard, soft bool) {
		if !clean(b) {
			return
		}
		fast := flattener{b: []byte(prefix), hard: hard, soft: soft}
		slow := fast
		slow.b = []byte(prefix)
		fast.writeKnown(b, true)
		slow.writeKnown(b, false)
		if string(fast.b) != string(slow.b) || fast.hard != slow.hard || fast.soft != slow.soft {
			t.Fatalf("%q after %q (hard %v soft %v): fast %q %v %v, loop %q %v %v",
				b, prefix, hard, soft, fast.b, fast.hard, fast.soft, slow.b, slow.hard, slow.soft)
		}
	})
}
