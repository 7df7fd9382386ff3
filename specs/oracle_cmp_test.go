package specs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/jats"
)

// fixtureDocs reads every fixture JATS article with the real reader.
func fixtureDocs(tb testing.TB) []*ingest.Document {
	tb.Helper()
	return readDocs(tb, fixtureDir, -1)
}

// readDocs reads the first n (all, for n < 0) JATS articles laid out in
// dir as the fixtures are (<dir>/*/*.xml) with the real reader.
func readDocs(tb testing.TB, dir string, n int) []*ingest.Document {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.*ml"))
	if n >= 0 {
		files = files[:min(len(files), n)]
	}
	if len(files) == 0 {
		tb.Fatalf("no articles in %s", dir)
	}
	var s sink
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		err = jats.Read(context.Background(), fh, f, &s)
		fh.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
	return s.docs
}

// statementsText spells statements out field by field, values behind
// pointers included, so that two lists compare as text.
func statementsText(sts []Statement) string {
	var b strings.Builder
	for _, s := range sts {
		v, sv := deref(s.Value), deref(s.SIValue)
		s.Value, s.SIValue = nil, nil
		fmt.Fprintf(&b, "%v %v %+v\n", v, sv, s)
	}
	return b.String()
}

// oldPanics runs the earlier extraction, reporting whether it panicked:
// it did on text that lower-casing shortens before a number.
func oldPanics(f func()) (panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	f()
	return false
}

func checkText(t *testing.T, text string) {
	t.Helper()
	ps := []Passage{{Where: "abstract", Text: text}}
	var want []Statement
	if oldPanics(func() { want = oldExtract(ps...) }) {
		Extract(ps...) // must not panic
		return
	}
	if got, want := statementsText(Extract(ps...)), statementsText(want); got != want {
		t.Fatalf("Extract(%q):\n got %s\nwant %s", text, got, want)
	}
}

func checkTable(t *testing.T, tb *ingest.Table) {
	t.Helper()
	var want []Statement
	if oldPanics(func() { want = oldExtractTable(tb) }) {
		ExtractTable(tb) // must not panic
		return
	}
	if got, want := statementsText(ExtractTable(tb)), statementsText(want); got != want {
		t.Fatalf("ExtractTable(%+v):\n got %s\nwant %s", tb, got, want)
	}
}

// TestExtractOracle checks that every fixture article yields the very
// statements of the earlier extraction, text and tables.
func TestExtractOracle(t *testing.T) {
	n := 0
	for _, d := range fixtureDocs(t) {
		got, want := ExtractDocument(d), oldExtractDocument(d)
		if g, w := statementsText(got), statementsText(want); g != w {
			t.Fatalf("%s:\n got %s\nwant %s", d.ID, g, w)
		}
		n += len(got)
	}
	if n < 500 {
		t.Errorf("%d statements from the fixtures, want many", n)
	}
}

// genPieces are the pieces generated sentences are built from: quantity
// phrases, family words, numbers, units, connectors and the characters
// the scanners treat specially.
var genPieces = func() []string {
	ps := []string{
		"1", "20", "0.5", "1,000", "0,3", "2.5×10^-3", "3e-4", "-20", "1.2.3", "±", "+/-", "–", "—", "-", "~", "to", "and", "between",
		"°C", "° C", "K", "eV", "W/mK", "W m^-1 K^-1", "mg/kg", "mg/kg/day", "mM", "µM", "μm", "nm", "g/cm³", "g/cm^3", "MPa", "GPa",
		"%", "h", "min", "s", "days", "mL", "Hz", "mV", "J/mol", "kJ mol^-1", "Pa·s", "S/cm", "Ω·m", "Å", "kDa", "℃", "º", "m⁻¹",
		"Fig.", "et al.", "e.g.", "(", ")", "[", "]", ",", ".", ";", ":", "/", "^", "_", "'", "’", "İ", "K", "ß", "É", "\u00a0", "\t",
		"\u212a", "Ratio", "FOLD", "P", "p", "P-value", "p<", "Change", "The", "at", "of", "was", "in", "with", "NaCl", "solar", "cells", "cell", "line", "AlSi10Mg", "the", "mice", "COVID-19",
	}
	for _, p := range phrases {
		ps = append(ps, p.text, strings.ToUpper(p.text[:1])+p.text[1:])
	}
	for w := range familyWords {
		ps = append(ps, w)
	}
	return ps
}()

// genSentence joins random pieces, mostly with spaces.
func genSentence(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(30) {
		b.WriteString(genPieces[r.IntN(len(genPieces))])
		switch r.IntN(6) {
		case 0:
		case 1:
			b.WriteString(". ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestExtractOracleGenerated compares the extraction with the earlier one
// on generated sentences and tables.
func TestExtractOracleGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		text := genSentence(r)
		checkText(t, text)
		if got, want := toLower(text), strings.ToLower(text); got != want {
			t.Fatalf("toLower(%q) = %q, want %q", text, got, want)
		}
		if got, want := splitWords(text), oldSplitWords(text); !slices.Equal(got, want) {
			t.Fatalf("splitWords(%q) = %v, want %v", text, got, want)
		}
	}
	for _, s := range []string{"\xff", "a\xc3", "\ufffd", "ÀÉ\u212aİ", "Σ\xe2\x82", "abc"} {
		if got, want := toLower(s), strings.ToLower(s); got != want {
			t.Errorf("toLower(%q) = %q, want %q", s, got, want)
		}
	}
	pick := func(ps ...string) string { return ps[r.IntN(len(ps))] }
	short := func() string {
		var b strings.Builder
		for k := range 1 + r.IntN(3) {
			if k > 0 && r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(genPieces[r.IntN(len(genPieces))])
		}
		return b.String()
	}
	for range 6000 {
		cell := func() string {
			switch r.IntN(6) {
			case 0:
				return ""
			case 1:
				return genSentence(r)
			case 2:
				return short()
			case 3:
				return short() + pick(" (", " [", ", ", " in ", "") + short() + pick(")", "]", "")
			default:
				return pick("", "-", "+") + pick("1.5", "398", "0,3", "1,000", "2.5e3") +
					pick("", " ± 0.2", "±1", "–2.5", " - 9", " to 12", "a", " ab", "*", " mm", " °C", "%", " days")
			}
		}
		tb := ingest.Table{Label: "T", Caption: cell(), Header: [][]string{{cell(), cell(), "SD", cell()}, {cell(), cell(), cell(), cell()}}}
		for range 4 {
			label := cell()
			if r.IntN(4) == 0 {
				label = pick("Ratio", "FOLD", "fold", "p", "P", "P-value", "p < 0.05", "Change", "fold change", "İ", "\u212a", "ratİo", "Significance level")
			}
			tb.Rows = append(tb.Rows, []string{label, cell(), cell(), cell()})
		}
		checkTable(t, &tb)
	}
}

// FuzzExtractOracle compares the extraction with the earlier one on any
// text, and on a table made of it. The seeds are the fixtures' passages.
func FuzzExtractOracle(f *testing.F) {
	for _, d := range fixtureDocs(f) {
		for _, p := range Passages(d.Title, d.Abstract, d.Sections) {
			f.Add(p.Text)
		}
		for _, tb := range d.Tables {
			for _, r := range append(tb.Header, tb.Rows...) {
				f.Add(strings.Join(r, "|"))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := squeeze(text), strings.Join(strings.Fields(normaliseText(text)), " "); got != want {
			t.Fatalf("squeeze(%q) = %q, want %q", text, got, want)
		}
		if got, want := toLower(text), strings.ToLower(text); got != want {
			t.Fatalf("toLower(%q) = %q, want %q", text, got, want)
		}
		if got, want := splitWords(text), oldSplitWords(text); !slices.Equal(got, want) {
			t.Fatalf("splitWords(%q) = %v, want %v", text, got, want)
		}
		checkText(t, text)
		cells := strings.Split(text, "|")
		for len(cells) < 4 {
			cells = append(cells, cells...)
		}
		tb := ingest.Table{Label: "T", Caption: cells[0], Header: [][]string{cells[:4], {"", cells[1], "SD", ""}},
			Rows: [][]string{cells[:4], {cells[3], cells[2], cells[1], cells[0]}, {cells[1], "1.5", "0.2", "3 mm"}}}
		checkTable(t, &tb)
	})
}

// TestPhrasesOverlapNotAtWords guards nameQuantity's scan of word
// starts: a search for a phrase skips the copies that overlap the one it
// found, the scan does not. That is the same only while such a copy (the
// phrase starting at a proper suffix that is also its prefix) cannot
// start a word: the phrase's byte before that suffix is a letter or digit.
func TestPhrasesOverlapNotAtWords(t *testing.T) {
	for _, p := range phrases {
		for n := 1; n < len(p.text); n++ {
			if p.text[:n] == p.text[len(p.text)-n:] && !asciiAlnum[p.text[len(p.text)-n-1]] {
				t.Errorf("phrase %q overlaps itself at a word start by %q", p.text, p.text[:n])
			}
		}
	}
}

// TestExtractShorterLowerCase checks text that lower-casing shortens (the
// Kelvin sign lowers to "k"), which once cut the window of a quantity
// phrase past the end of the lowered text, and may leave all the window
// past it.
func TestExtractShorterLowerCase(t *testing.T) {
	for _, text := range []string{"\u212a\u212a\u212a 5 °C", strings.Repeat("\u212a", 100) + " 5 °C"} {
		sts := Extract(Passage{Where: "abstract", Text: text})
		if len(sts) != 1 || sts[0].Quantity != "temperature" {
			t.Errorf("Extract(%q) = %+v, want one temperature", text, sts)
		}
	}
	tb := ingest.Table{Label: "T", Header: [][]string{{"", "\u212a\u212a\u212a\u212a"}}, Rows: [][]string{{"Cu", "5 °C"}}}
	if sts := ExtractTable(&tb); len(sts) != 1 || sts[0].Quantity != "temperature" {
		t.Errorf("ExtractTable = %+v, want one temperature", sts)
	}
}
