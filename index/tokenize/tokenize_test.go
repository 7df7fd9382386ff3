package tokenize

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"SARS-CoV-2 infection", []string{"sars", "cov", "2", "infection"}},
		{"COVID19 and covid-19", []string{"covid19", "and", "covid", "19"}},
		{"Type 2 diabetes", []string{"type", "2", "diabetes"}},
		{"Alzheimer's disease", []string{"alzheimer", "disease"}},
		{"J. R. R. Tolkien", []string{"tolkien"}},
		{"Müller", []string{"muller"}},
		{"MÜLLER", []string{"muller"}},
		{"Straße", []string{"strasse"}},
		{"STRASSE", []string{"strasse"}},
		{"Ærøskøbing", []string{"aeroskobing"}},
		{"Łódź", []string{"lodz"}},
		{"Œuvre", []string{"oeuvre"}},
		{"Đorđević", []string{"dordevic"}},
		{"Þór", []string{"thor"}},
		{"São Paulo", []string{"sao", "paulo"}},
		{"naïve café résumé", []string{"naive", "cafe", "resume"}},
		{"İstanbul", []string{"istanbul"}},
		{"ﬁnancial", []string{"financial"}},            // ligature
		{"H₂O and CO²", []string{"h2o", "and", "co2"}}, // sub/superscripts
		{"ＦＵＬＬＷＩＤＴＨ", []string{"fullwidth"}},
		{"Ωμέγα ΣΟΦΟΣ σοφός", []string{"ωμεγα", "σοφοσ", "σοφοσ"}},
		{"Москва́ Россия", []string{"москва", "россия"}},
		{"神经科学 研究", []string{"神", "经", "科", "学", "研", "究"}},
		{"ニューロン", []string{"ニ", "ュ", "ロ", "ン"}}, // ー is a Common-script sign, not Katakana
		{"한국어 연구", []string{"한국어", "연구"}},
		{"tab\tnew\nline", []string{"tab", "new", "line"}},
		{"under_score", []string{"under", "score"}},
		{"a b c 1 2", []string{"1", "2"}},
		{"x" + strings.Repeat("y", MaxTokenBytes), nil},
		{strings.Repeat("y", MaxTokenBytes), []string{strings.Repeat("y", MaxTokenBytes)}},
		{"\xff\xfeabc", []string{"abc"}}, // invalid UTF-8 separates
	}
	for _, tt := range tests {
		got := Tokens(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTermsDropsStopWords(t *testing.T) {
	got := Terms("The role of the amygdala in fear and anxiety")
	want := []string{"role", "amygdala", "fear", "anxiety"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestIsStopWord(t *testing.T) {
	for _, w := range StopWords() {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false", w)
		}
		for _, x := range []string{w[:len(w)-1], w + "s", strings.ToUpper(w), "x" + w} {
			if _, stop := stopWords[x]; IsStopWord(x) != stop {
				t.Errorf("IsStopWord(%q) = %v", x, !stop)
			}
		}
	}
}

func TestStopWordLengths(t *testing.T) {
	for _, w := range StopWords() {
		if len(w) < 2 || len(w) > maxStopWord || !IsStopWord(w) {
			t.Errorf("stop word %q: IsStopWord skips it by its length", w)
		}
	}
}

func TestQuery(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"the amygdala of the mouse amygdala", []string{"amygdala", "mouse"}},
		{"The The", []string{"the"}}, // nothing but stop words: keep them
		{"", nil},
		{"Müller MULLER", []string{"muller"}},
	}
	for _, tt := range tests {
		got := Query(tt.in)
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Query(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestASCIIPathMatchesUnicodePath(t *testing.T) {
	for _, s := range []string{"Hello World", "SARS-CoV-2", "A b Cd 9 x_y", "ABC123def"} {
		if a, u := Append(nil, s), appendUnicode(nil, s); !slices.Equal(a, u) {
			t.Errorf("%q: ascii %q, unicode %q", s, a, u)
		}
	}
}

// TestPlainSeparators checks what appendRun relies on: a plain separator
// is a starter that NFKD leaves alone or maps to ASCII separators, and that
// appendUnicode treats as a separator; cutting a run at it gives the
// tokens of the whole run, whatever surrounds it.
// TestLatinFold checks foldLatin against appendUnicode for every letter
// of its table, alone and in words, and that the table has the letters
// of the languages the corpus is mostly in.
func TestLatinFold(t *testing.T) {
	for _, r := range "ÀÉÎÕÜàéîõüçÇñÑãÃßæÆøØðÐþÞłŁœŒıĳŉſčřšžőű" {
		s := string(r)
		for _, in := range []string{s, "a" + s, s + s + "B2", "Ab" + s + "cD", "x" + s + strings.Repeat("y", MaxTokenBytes-3),
			"x" + s + strings.Repeat("y", MaxTokenBytes), s + "\u0301x", "naïve" + s + "–São"} {
			checkTokens(t, in)
		}
	}
	for _, r := range "éçãßÆøÞı" {
		if latinFold[r-latinFirst] == "" {
			t.Errorf("%q: not in latinFold", r)
		}
	}
}

func TestPlainSeparators(t *testing.T) {
	n := 0
	for r := rune(0x80); r < 0x3000; r++ {
		if !plainSeparator(r) {
			continue
		}
		n++
		s := string(r)
		if d := norm.NFKD.String(s); d != s && strings.IndexFunc(d, func(c rune) bool { return c >= utf8.RuneSelf || wordRune(c) }) >= 0 {
			t.Errorf("%U: NFKD gives %q", r, d)
		}
		if ccc := norm.NFKD.PropertiesString(s).CCC(); ccc != 0 {
			t.Errorf("%U: combining class %d", r, ccc)
		}
		if got := appendUnicode(nil, "ab"+s+"cd"); !slices.Equal(got, []string{"ab", "cd"}) {
			t.Errorf("%U: appendUnicode(ab%scd) = %q, want a separator", r, s, got)
		}
		for _, ctx := range []string{"Ab%sCd", "é%s\u0301x", "x\u0301%s\u0327\u0301z", "1%s2", "%s%s", "naïve%sCafé", "\xff%s\xfe"} {
			in := strings.ReplaceAll(ctx, "%s", s)
			checkTokens(t, in)
		}
	}
	if n == 0 {
		t.Fatal("no plain separators")
	}
}

// checkTokens asserts the invariants every tokenisation must keep.
func checkTokens(t *testing.T, s string) {
	t.Helper()
	toks := Tokens(s)
	for _, tok := range toks {
		if tok == "" || len(tok) > MaxTokenBytes || !utf8.ValidString(tok) {
			t.Fatalf("Tokens(%q): bad token %q", s, tok)
		}
		for _, r := range tok {
			if !wordRune(r) {
				t.Fatalf("Tokens(%q): token %q holds separator %q", s, tok, r)
			}
		}
		if strings.ContainsFunc(tok, unicode.IsUpper) {
			t.Fatalf("Tokens(%q): token %q not lower case", s, tok)
		}
	}
	again := Tokens(strings.Join(toks, " "))
	if !slices.Equal(toks, again) {
		t.Fatalf("not idempotent: Tokens(%q) = %q, then %q", s, toks, again)
	}
	// Tokens takes the ASCII path for the ASCII runs of s: the tokens must
	// be those of the Unicode path over all of s.
	if u := appendUnicode(nil, s); !slices.Equal(toks, u) {
		t.Fatalf("Tokens(%q) = %q, the Unicode path over all of it %q", s, toks, u)
	}
}

func TestInvariants(t *testing.T) {
	for _, s := range []string{"Ǆemal", "Ⅻ century", "ΐ", "ǅ", "ᾼ", "ﬃ", "ÅNGSTRÖM Å", "µm", "K",
		"2–3 mg·kg⁻¹ in 10 µl (n = 5)", "a ́b", "x\u0301 y\u0327\u0301z", "℀ and ℅/c", "½-dose", "\xffab\xfe-CD e\xc3",
		"Smith’s “naïve” cells—in vitro", "1st 2nd ¹²³ H₂O", "Ação e pesquisa científica: Müller–Straße, Łódź ĲSSEL", "pH\u00a07·4 ± 0·2 – “A–B” ≤\u0338 5", "the ﬁrst ﬂoor", strings.Repeat("é", 40) + " ok"} {
		checkTokens(t, s)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"Hello, World", "SARS-CoV-2", "Müller Straße", "神经科学", "한국어", "Ærø",
		"ﬁ H₂O", "İstanbul", "\xff", "a-b-c 1 2 3", "Ωμέγα σοφός", "हिन्दी भाषा",
		"2–3 mg·kg⁻¹ (n = 5)", "x \u0301y", "℀/c", "Smith’s “naïve” cells", "É\u00a0–\u0301é",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkTokens(t, s)
		_ = Query(s)
	})
}

func BenchmarkTokensASCII(b *testing.B) {
	s := "Structural basis for the recognition of SARS-CoV-2 by full-length human ACE2"
	b.SetBytes(int64(len(s)))
	var buf []string
	for b.Loop() {
		buf = Append(buf[:0], s)
	}
}

func BenchmarkTokensUnicode(b *testing.B) {
	s := "Über die Rolle der Mikroglia bei neurodegenerativen Erkrankungen: Übersicht"
	b.SetBytes(int64(len(s)))
	var buf []string
	for b.Loop() {
		buf = Append(buf[:0], s)
	}
}

// BenchmarkTokensParagraph tokenises a paragraph of full text, the bulk of
// what a build tokenises.
func BenchmarkTokensParagraph(b *testing.B) {
	s := "Mitochondrial dysfunction is a hallmark of ageing and of several neurodegenerative diseases (1, 2). " +
		"In Drosophila melanogaster, loss of PINK1 or Parkin leads to muscle degeneration and defective flight; " +
		"both genes act in a common pathway that promotes the selective removal of damaged mitochondria by autophagy. " +
		"Here we show that the outer-membrane protein Mfn2 is ubiquitinated within 30 min of depolarisation with CCCP " +
		"(10 µM), and that this modification depends on the kinase activity of PINK1 (Fig. 2A–C; n = 3 independent " +
		"experiments, P < 0.01). Cells expressing a kinase-dead mutant (K219M) failed to recruit Parkin to the " +
		"mitochondrial network, whereas wild-type cells did so in 85% of the cases. These data suggest a model in " +
		"which PINK1 accumulates on damaged organelles, recruits Parkin and thereby marks them for degradation."
	b.SetBytes(int64(len(s)))
	var buf []string
	for b.Loop() {
		buf = Append(buf[:0], s)
	}
}
