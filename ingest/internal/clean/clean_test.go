package clean

import "testing"

func TestJATSAbstract(t *testing.T) {
	for in, want := range map[string]string{
		`<jats:p>One.</jats:p>`: "One.",
		`<jats:title>Abstract</jats:title><jats:p>Body <jats:italic>in</jats:italic> text.</jats:p>`:                          "Body in text.",
		`<jats:sec><jats:title>Background</jats:title><jats:p>B.</jats:p></jats:sec><jats:sec><jats:p>C.</jats:p></jats:sec>`: "Background\nB.\nC.",
		"<jats:p>p &lt; 0.05 and q > 1,\n  spread\tover lines</jats:p>":                                                       "p < 0.05 and q > 1, spread over lines",
		"plain text, no markup": "plain text, no markup",
		"":                      "",
	} {
		if got := JATSAbstract(in); got != want {
			t.Errorf("JATSAbstract(%q) = %q, want %q", in, got, want)
		}
	}
}
