package corpus

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// FirstPMCID is the PMC number of document 0. Every id up to
// MaxDocuments has the same number of digits, so string order is numeric
// order.
const FirstPMCID = 10_000_000

// MaxDocuments is the largest corpus a Generator makes.
const MaxDocuments = 89_999_999

// ErrConfig reports an unusable generator configuration.
var ErrConfig = errors.New("corpus: invalid configuration")

// Config shapes the generated documents.
type Config struct {
	// Seed makes a different corpus; the same seed gives the same one.
	Seed uint64
	// Topics are the taxonomy slugs documents are spread over (1 to 3
	// each, power-law popular). Required.
	Topics []string
	// FulltextShare and ReferencesShare are the fractions of documents
	// with full text and with references; negative means none, zero means
	// the defaults (0.2 and 0.3).
	FulltextShare, ReferencesShare float64
	// WordExponent is the Zipf exponent of words and names; 0 means 1.05.
	WordExponent float64
	// Documents is the size of the corpus the documents belong to. When
	// set, about 60 % of the references of a document cite another
	// document of the corpus (by its DOI), with power-law popularity, so
	// that "cited by" counts are meaningful; 0 means references point
	// outside the corpus only.
	Documents int
	// PhraseShare is the probability that the next words of a title,
	// abstract or paragraph are a whole keyword phrase of the vocabulary
	// (real multi-word phrases such as "heart failure"), which gives the
	// text recurring bigrams and phrase queries a realistic selectivity;
	// negative means none, zero means the default 0.15.
	PhraseShare float64
}

// Generator makes documents. It is safe for concurrent use: Doc only
// reads the shared tables.
type Generator struct {
	v                                                  *Vocabulary
	cfg                                                Config
	words, keywords, given, family, venues, pubs, affs *zipf
	topics                                             *zipf
	licences                                           []licence.Decision
	licenceCDF                                         []float64
	sectionTitles                                      []string
	ftShare, refShare, phraseShare                     float64
	// citeMul is a multiplier prime to Documents: rank r of the
	// popularity law is document (r*citeMul + 7) mod Documents, so that
	// popular documents are spread over the id range.
	citeMul uint64
}

// New returns a generator over v.
func New(v *Vocabulary, cfg Config) (*Generator, error) {
	if v == nil || len(v.Words) == 0 || len(v.Family) == 0 || len(v.Given) == 0 {
		return nil, fmt.Errorf("%w: empty vocabulary", ErrConfig)
	}
	if len(cfg.Topics) == 0 {
		return nil, fmt.Errorf("%w: no topics", ErrConfig)
	}
	if cfg.Documents < 0 || cfg.Documents > MaxDocuments+1 {
		return nil, fmt.Errorf("%w: Documents=%d outside 0..%d", ErrConfig, cfg.Documents, MaxDocuments+1)
	}
	if cfg.WordExponent == 0 {
		cfg.WordExponent = 1.05
	}
	if cfg.WordExponent <= 0 || math.IsNaN(cfg.WordExponent) || cfg.WordExponent > 4 {
		return nil, fmt.Errorf("%w: word exponent %v", ErrConfig, cfg.WordExponent)
	}
	share := func(x, def float64) float64 {
		switch {
		case x == 0:
			return def
		case x < 0:
			return 0
		}
		return min(x, 1)
	}
	s := cfg.WordExponent
	g := &Generator{
		v: v, cfg: cfg,
		words:    newZipf(len(v.Words), s),
		keywords: newZipf(len(v.Keywords), s),
		given:    newZipf(len(v.Given), s),
		family:   newZipf(len(v.Family), 0.9), // surnames are flatter than words
		venues:   newZipf(len(v.Venues), 1.0),
		pubs:     newZipf(len(v.Publishers), 1.0),
		affs:     newZipf(max(len(v.Affiliations), 1), 1.0),
		topics:   newZipf(len(cfg.Topics), 0.8),
		ftShare:  share(cfg.FulltextShare, 0.2), refShare: share(cfg.ReferencesShare, 0.3),
		phraseShare: share(cfg.PhraseShare, 0.15),
		// 2³¹−1 is prime and larger than MaxDocuments, so prime to any
		// corpus size.
		citeMul: 2_147_483_647,
		sectionTitles: []string{"Introduction", "Background", "Methods", "Materials and methods", "Results",
			"Discussion", "Conclusions", "Limitations"},
	}
	// Real decisions for the accepted families, weighted roughly like
	// PMC's open-access subset.
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, l := range []struct {
		url    string
		weight float64
	}{
		{"https://creativecommons.org/licenses/by/4.0/", 0.70},
		{"https://creativecommons.org/licenses/by/3.0/", 0.08},
		{"https://creativecommons.org/publicdomain/zero/1.0/", 0.09},
		{"https://creativecommons.org/licenses/by-sa/4.0/", 0.06},
		{"https://creativecommons.org/publicdomain/mark/1.0/", 0.04},
		{"https://creativecommons.org/licenses/by/2.0/", 0.03},
	} {
		d := licence.Decide([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC, Value: l.url}}, now)
		if !d.Accepted {
			return nil, fmt.Errorf("%w: licence %s not accepted: %s", ErrConfig, l.url, d.Reason)
		}
		g.licences = append(g.licences, d)
		prev := 0.0
		if n := len(g.licenceCDF); n > 0 {
			prev = g.licenceCDF[n-1]
		}
		g.licenceCDF = append(g.licenceCDF, prev+l.weight)
	}
	return g, nil
}

// zipf samples ranks 0..n-1 with P(r) ∝ 1/(r+1)^s, in constant time with
// Walker's alias method (a binary search over a 300 000-entry cumulative
// table made generation slower than indexing).
type zipf struct {
	prob  []float64
	alias []int32
}

func newZipf(n int, s float64) *zipf {
	w := make([]float64, n)
	sum := 0.0
	for r := range w {
		w[r] = math.Pow(float64(r+1), -s)
		sum += w[r]
	}
	z := &zipf{prob: make([]float64, n), alias: make([]int32, n)}
	var small, large []int32
	for r := range w {
		w[r] *= float64(n) / sum
		if w[r] < 1 {
			small = append(small, int32(r))
		} else {
			large = append(large, int32(r))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l, g := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		z.prob[l], z.alias[l] = w[l], g
		w[g] -= 1 - w[l]
		if w[g] < 1 {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	for _, r := range append(small, large...) {
		z.prob[r], z.alias[r] = 1, r
	}
	return z
}

func (z *zipf) draw(rng *rand.Rand) int {
	i := rng.IntN(len(z.prob))
	if rng.Float64() < z.prob[i] {
		return i
	}
	return int(z.alias[i])
}

// ID returns the canonical id of document i.
func ID(i int) string { return "pmc-" + strconv.Itoa(FirstPMCID+i) }

// DOI returns the DOI of document i.
func DOI(i int) string { return "10.5555/openshelf.bench." + strconv.Itoa(i) }

// cited draws the document a reference of document i cites: popularity
// rank r = ⌊N·u⁴⌋ (a power law: the top 0.01 % of documents get about a
// tenth of the citations, most get none), mapped to a document by a
// bijection of [0, N) so that popular documents are spread over the ids.
func (g *Generator) cited(rng *rand.Rand, i int) int {
	n := uint64(g.cfg.Documents)
	for {
		u := rng.Float64()
		r := uint64(float64(n) * u * u * u * u)
		j := int((r%n*g.citeMul + 7) % n)
		if j != i {
			return j
		}
	}
}

// sources sets where a document's record "came from", as the merge of
// real sources spells them: documents with full text come from JATS
// (PMC), the others from one bibliographic source; many have more.
func (g *Generator) sources(rng *rand.Rand, d *ingest.Document) {
	if len(d.Sections) > 0 {
		d.Sources = []string{"jats:pmc"}
	} else {
		d.Sources = []string{[]string{"pubmed", "openalex", "crossref"}[rng.IntN(3)]}
	}
	for _, s := range []string{"pubmed", "openalex", "crossref"} {
		if s == "pubmed" && d.PMID == "" {
			continue
		}
		if !contains(d.Sources, s) && rng.IntN(3) == 0 {
			d.Sources = append(d.Sources, s)
		}
	}
}

// Doc returns document i, the same for the same generator configuration and
// vocabulary. i must be in [0, MaxDocuments].
func (g *Generator) Doc(i int) *ingest.Document {
	rng := rand.New(rand.NewPCG(g.cfg.Seed, uint64(i)))
	d := &ingest.Document{
		PMCID: strconv.Itoa(FirstPMCID + i),
		DOI:   DOI(i),
		Title: capitalise(g.text(rng, 6+rng.IntN(11))),
		Venue: g.v.Venues[g.venues.draw(rng)], Publisher: g.v.Publishers[g.pubs.draw(rng)],
		Type: "research-article", Language: "en",
		Abstract: g.sentences(rng, 30+rng.IntN(50)),
		Origin:   "bench/" + strconv.Itoa(i) + ".nxml",
	}
	if rng.IntN(10) < 7 {
		d.PMID = strconv.Itoa(30_000_000 + i)
	}
	// Recent years dominate, as in PMC.
	d.Year = 2025 - int(math.Floor(30*math.Pow(rng.Float64(), 2)))
	d.Date = fmt.Sprintf("%d-%02d-%02d", d.Year, 1+rng.IntN(12), 1+rng.IntN(28))

	for k := 2 + rng.IntN(5); k > 0; k-- {
		if rng.IntN(2) == 0 {
			d.Keywords = append(d.Keywords, g.v.Keywords[g.keywords.draw(rng)])
		} else {
			d.Keywords = append(d.Keywords, g.text(rng, 1+rng.IntN(2)))
		}
	}
	// 1 to 12 authors, about 5 on average.
	na := 1 + min(int(rng.ExpFloat64()*4), 11)
	aff := ""
	if len(g.v.Affiliations) > 0 && rng.IntN(2) == 0 {
		aff = g.v.Affiliations[g.affs.draw(rng)]
	}
	for k := 0; k < na; k++ {
		a := ingest.Author{Given: g.v.Given[g.given.draw(rng)], Family: g.v.Family[g.family.draw(rng)]}
		a.Name = a.Given + " " + a.Family
		if aff != "" {
			a.Affiliations = []string{aff}
		}
		d.Authors = append(d.Authors, a)
	}
	nt := 1 + rng.IntN(3)
	for len(d.Topics) < nt {
		t := g.cfg.Topics[g.topics.draw(rng)]
		if !contains(d.Topics, t) {
			d.Topics = append(d.Topics, t)
		}
		if len(d.Topics) >= len(g.cfg.Topics) {
			break
		}
	}
	li := sort.SearchFloat64s(g.licenceCDF, rng.Float64()*g.licenceCDF[len(g.licenceCDF)-1])
	d.Licence = g.licences[min(li, len(g.licences)-1)]
	d.Licence.Evidence = append([]licence.Evidence(nil), d.Licence.Evidence...)

	if rng.Float64() < g.ftShare {
		for k := 2 + rng.IntN(3); k > 0; k-- {
			s := ingest.Section{Title: g.sectionTitles[rng.IntN(len(g.sectionTitles))]}
			for p := 1 + rng.IntN(2); p > 0; p-- {
				s.Paragraphs = append(s.Paragraphs, g.sentences(rng, 30+rng.IntN(40)))
			}
			d.Sections = append(d.Sections, s)
		}
	}
	if rng.Float64() < g.refShare {
		for k := 5 + rng.IntN(11); k > 0; k-- {
			r := ingest.Reference{Title: capitalise(g.text(rng, 5+rng.IntN(8))), Source: g.v.Venues[g.venues.draw(rng)],
				Year: strconv.Itoa(1980 + rng.IntN(d.Year-1979))}
			for a := 1 + rng.IntN(3); a > 0; a-- {
				r.Authors = append(r.Authors, g.v.Family[g.family.draw(rng)]+" "+initial(g.v.Given[g.given.draw(rng)]))
			}
			switch {
			case g.cfg.Documents > 1 && rng.IntN(10) < 6:
				r.DOI = DOI(g.cited(rng, i))
			case rng.IntN(2) == 0:
				r.DOI = "10.5555/ref." + strconv.FormatUint(rng.Uint64()%1e9, 10)
			}
			d.References = append(d.References, r)
		}
	}
	g.sources(rng, d)
	d.AssignIDs()
	return d
}

// text is about n words; with probability phraseShare the next words
// are a whole keyword phrase, lower-cased, so that real phrases recur.
func (g *Generator) text(rng *rand.Rand, n int) string {
	var b strings.Builder
	for k := 0; k < n; {
		if k > 0 {
			b.WriteByte(' ')
		}
		if g.phraseShare > 0 && rng.Float64() < g.phraseShare {
			p := strings.ToLower(g.v.Keywords[g.keywords.draw(rng)])
			b.WriteString(p)
			k += 1 + strings.Count(p, " ")
			continue
		}
		b.WriteString(g.v.Words[g.words.draw(rng)])
		k++
	}
	return b.String()
}

// sentences is about n words cut into capitalised sentences.
func (g *Generator) sentences(rng *rand.Rand, n int) string {
	var b strings.Builder
	for n > 0 {
		k := min(n, 8+rng.IntN(14))
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(capitalise(g.text(rng, k)))
		b.WriteByte('.')
		n -= k
	}
	return b.String()
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func initial(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return string(r)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
