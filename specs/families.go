package specs

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Family kinds.
const (
	KindMaterial = "material"
	KindCompound = "compound"
	KindDevice   = "device"
	KindOrganism = "organism"
)

// family is a subject family: the words that name it in text (singular and
// plural, lower case) and its kind.
type family struct {
	name, kind string
	words      []string
}

// families is the curated subject list. Order matters only for a word
// that names two families (none today).
var families = []family{
	{"alloy", KindMaterial, []string{"alloy", "alloys"}},
	{"steel", KindMaterial, []string{"steel", "steels"}},
	{"aluminium", KindMaterial, []string{"aluminium", "aluminum"}},
	{"copper", KindMaterial, []string{"copper"}},
	{"titanium", KindMaterial, []string{"titanium"}},
	{"ceramic", KindMaterial, []string{"ceramic", "ceramics", "porcelain", "tile", "tiles", "brick", "bricks"}},
	{"clay", KindMaterial, []string{"clay", "clays", "kaolin"}},
	{"glass", KindMaterial, []string{"glass", "glasses"}},
	{"polymer", KindMaterial, []string{"polymer", "polymers", "plastic", "plastics", "resin", "epoxy"}},
	{"composite", KindMaterial, []string{"composite", "composites"}},
	{"concrete", KindMaterial, []string{"concrete", "cement", "mortar"}},
	{"semiconductor", KindMaterial, []string{"semiconductor", "semiconductors", "silicon", "perovskite", "perovskites", "gaas", "gan"}},
	{"carbon", KindMaterial, []string{"graphene", "graphite", "nanotube", "nanotubes", "diamond"}},
	{"oxide", KindMaterial, []string{"oxide", "oxides"}},
	{"nanoparticle", KindMaterial, []string{"nanoparticle", "nanoparticles"}},
	{"film", KindMaterial, []string{"film", "films", "coating", "coatings"}},
	{"wood", KindMaterial, []string{"wood", "timber"}},
	{"sludge", KindMaterial, []string{"sludge", "mud", "waste"}},
	{"solvent", KindCompound, []string{"ethanol", "methanol", "dmso", "acetone", "water"}},
	{"salt", KindCompound, []string{"nacl", "kcl", "mgcl2", "cacl2", "salt"}},
	{"buffer", KindCompound, []string{"tris", "hepes", "pbs", "buffer", "edta"}},
	{"acid", KindCompound, []string{"acid", "acids"}},
	{"drug", KindCompound, []string{"drug", "drugs", "antibiotic", "antibiotics", "ampicillin", "kanamycin", "ketamine", "xylazine", "vaccine"}},
	{"protein", KindCompound, []string{"protein", "proteins", "enzyme", "enzymes", "antibody", "antibodies"}},
	{"battery", KindDevice, []string{"battery", "batteries", "electrode", "electrodes", "anode", "cathode"}},
	{"solar_cell", KindDevice, []string{"solar cell", "solar cells", "photovoltaic"}},
	{"transistor", KindDevice, []string{"transistor", "transistors"}},
	{"sensor", KindDevice, []string{"sensor", "sensors", "probe", "electrode"}},
	{"laser", KindDevice, []string{"laser", "lasers", "led", "leds"}},
	{"microscope", KindDevice, []string{"microscope", "camera", "objective", "spectrometer"}},
	{"mouse", KindOrganism, []string{"mouse", "mice"}},
	{"rat", KindOrganism, []string{"rat", "rats"}},
	{"human", KindOrganism, []string{"patient", "patients", "participant", "participants", "volunteers", "subjects", "children", "adults", "women", "men"}},
	{"zebrafish", KindOrganism, []string{"zebrafish", "larvae"}},
	{"fly", KindOrganism, []string{"drosophila", "flies"}},
	{"worm", KindOrganism, []string{"elegans", "worms", "nematode", "nematodes"}},
	{"bacteria", KindOrganism, []string{"bacteria", "bacterial", "coli", "strain", "strains", "cultures"}},
	{"yeast", KindOrganism, []string{"yeast", "cerevisiae"}},
	{"plant", KindOrganism, []string{"plant", "plants", "arabidopsis", "seedlings", "leaves"}},
	{"cell_line", KindOrganism, []string{"cells", "cell line", "hela", "hek293"}},
	{"fish", KindOrganism, []string{"fish", "salmon", "trout"}},
	{"virus", KindOrganism, []string{"virus", "viruses", "viral"}},
	{"parasite", KindOrganism, []string{"parasite", "parasites", "plasmodium", "schistosoma", "trypanosoma"}},
}

var familyWords = func() map[string]*family {
	m := map[string]*family{}
	for i := range families {
		for _, w := range families[i].words {
			if _, dup := m[w]; !dup {
				m[w] = &families[i]
			}
		}
	}
	return m
}()

// NormaliseFamily turns a user's family ("Alloys", "mice") into the table's
// name, or the lower-cased input when it is not a known family word.
func NormaliseFamily(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if f, ok := familyWords[s]; ok {
		return f.name
	}
	for _, f := range families {
		if f.name == s {
			return s
		}
	}
	return s
}

// findFamily returns the family word nearest to pos in the sentence
// (before it preferred), as subject and family.
func findFamily(words []word, pos int) (subject string, f *family) {
	return nearestFamily(words, familyHits(words), pos)
}

// familyHit is a word of a sentence that names a family, alone or with
// the word after it.
type familyHit struct {
	i int // index in the sentence's words
	f *family
}

// familyHits lists the family words of a sentence, once for all its
// statements.
func familyHits(words []word) []familyHit { return appendFamilyHits(nil, words) }

// appendFamilyHits appends the family words of a sentence to hits.
func appendFamilyHits(hits []familyHit, words []word) []familyHit {
	var buf [64]byte // the keys, without allocating for each word
	for i, w := range words {
		if !maybeFamilyWord(w.text) {
			continue
		}
		key := appendLower(buf[:0], w.text)
		n := len(key)
		var (
			fam *family
			ok  bool
		)
		if i+1 < len(words) && pairFirst(key) {
			key = appendLower(append(key, ' '), words[i+1].text)
			fam, ok = familyWords[string(key)]
		}
		if !ok {
			fam, ok = familyWords[string(key[:n])]
		}
		if ok {
			hits = append(hits, familyHit{i, fam})
		}
	}
	return hits
}

// familyPairFirsts are the first words of the two-word family words
// ("solar cell"): only after one of them is a pair worth looking up.
var familyPairFirsts = func() (firsts []string) {
	for w := range familyWords {
		if first, _, ok := strings.Cut(w, " "); ok && !slices.Contains(firsts, first) {
			firsts = append(firsts, first)
		}
	}
	return firsts
}()

// familyShapes holds the shapes of the family words and of the first
// words of pairs.
var familyShapes = func() (t shapes) {
	for w := range familyWords {
		first, _, _ := strings.Cut(w, " ")
		t.add(w)
		t.add(first)
	}
	return t
}()

// maybeFamilyWord reports whether w may be a family word or the first of
// a pair, lower-cased; false only when it cannot. Most words of a sentence
// are not, and their shape says so without lower-casing them and hashing
// them for the map.
func maybeFamilyWord(w string) bool { return familyShapes.mayHold(w) }

// shapes is a set of lower-case words by their shapes: their length,
// first and last byte (each byte by its low six bits, which tell ASCII
// letters apart).
type shapes [maxShaped + 1][64]uint64

// maxShaped bounds the length of the words of shapes.
const maxShaped = 24

func (t *shapes) add(w string) {
	if w == "" || len(w) > maxShaped {
		panic("specs: no shape for " + strconv.Quote(w))
	}
	t[len(w)][w[0]&63] |= 1 << (w[len(w)-1] & 63)
}

// mayHold reports whether w, lower-cased, may be one of the words; false
// only when it cannot.
func (t *shapes) mayHold(w string) bool {
	switch {
	case w == "":
		return false
	case !isASCII(w):
		return true // lower-casing may change its length
	case len(w) > maxShaped:
		return false
	}
	first, last := asciiLower[w[0]], asciiLower[w[len(w)-1]]
	return t[len(w)][first&63]&(1<<(last&63)) != 0
}

func pairFirst(key []byte) bool {
	for _, f := range familyPairFirsts {
		if string(key) == f {
			return true
		}
	}
	return false
}

// nearestFamily returns the hit nearest to pos (before it preferred), as
// subject and family.
func nearestFamily(words []word, hits []familyHit, pos int) (subject string, f *family) {
	best := -1
	for _, h := range hits {
		w := &words[h.i]
		d := pos - w.end
		if w.start > pos {
			d = (w.start - pos) * 2 // after the number counts double
		}
		if best < 0 || d < best {
			best, subject, f = d, subjectPhrase(words, h.i), h.f
		}
	}
	return subject, f
}

// appendLower appends strings.ToLower(s) to dst. strings.ToLower maps
// text with any non-ASCII character a rune at a time through a function
// value; this copies the ASCII a byte at a time.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			// Copy the run of ASCII at once, then lower-case it in place.
			j := i + asciiPrefix(s[i:])
			n := len(dst)
			dst = append(dst, s[i:j]...)
			for k := n; k < len(dst); k++ {
				dst[k] = asciiLower[dst[k]]
			}
			i = j
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch l := unicode.ToLower(r); {
		case r == utf8.RuneError:
			dst = utf8.AppendRune(dst, utf8.RuneError) // as strings.Map spells bad bytes
		case l == r:
			dst = append(dst, s[i:i+w]...)
		default:
			dst = utf8.AppendRune(dst, l)
		}
		i += w
	}
	return dst
}

// subjectPhrase is the family word with up to two modifiers before it
// ("the AlSi10Mg alloy" → "AlSi10Mg alloy").
func subjectPhrase(words []word, i int) string {
	start := i
	for start > 0 && i-start < 2 {
		p := strings.ToLower(words[start-1].text)
		if stopWords[p] || !isWordish(words[start-1].text) {
			break
		}
		start--
	}
	parts := make([]string, 0, i-start+1)
	for _, w := range words[start : i+1] {
		parts = append(parts, w.text)
	}
	return strings.Join(parts, " ")
}

func isWordish(s string) bool {
	for _, r := range s {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r > 127) {
			return false
		}
	}
	return s != ""
}

var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "at": true, "for": true, "and": true,
	"or": true, "with": true, "was": true, "were": true, "is": true, "are": true, "to": true, "by": true,
	"from": true, "as": true, "that": true, "this": true, "these": true, "those": true, "all": true, "each": true,
	"its": true, "their": true, "we": true, "our": true, "than": true, "between": true, "into": true, "per": true,
}

// solute is the subject of a concentration: the word right after the
// unit ("25 mM sucrose", "150 mM NaCl"); its family when it names one,
// and the compound kind.
func solute(words []word, end int) (subject, family, kind string) {
	for i, w := range words {
		if w.start < end {
			continue
		}
		lw := strings.ToLower(w.text)
		if stopWords[lw] || w.text == "" {
			return "", "", ""
		}
		if i > 0 && words[i-1].end > end {
			return "", "", "" // not the first word after the unit
		}
		if f, ok := familyWords[lw]; ok {
			return w.text, f.name, f.kind
		}
		return w.text, "", KindCompound
	}
	return "", "", ""
}
