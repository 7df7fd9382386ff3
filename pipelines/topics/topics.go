package topics

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/pipelines"
)

// Fallback is the topic of documents that match no rule.
const Fallback = "general-science"

// MaxTopics caps the topics of one document, so a PLOS article with forty
// subject terms does not land in every bundle.
const MaxTopics = 5

// ErrInvalid marks a taxonomy or rules table that cannot be used.
var ErrInvalid = errors.New("topics: invalid table")

// Topic is one entry of the taxonomy.
type Topic struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Parent      string `json:"parent,omitempty"`
	Description string `json:"description,omitempty"`
}

// Taxonomy is a loaded, validated taxonomy with its rules. It is safe for
// concurrent use.
type Taxonomy struct {
	topics []Topic
	index  map[string]int // slug -> position in topics
	rules  []rule
	// byWord and byStem index rules by their first pattern word: exact
	// words, and the first three letters of prefix words.
	byWord map[string][]int
	byStem map[string][]int
	// fingerprint identifies the tables it was loaded from.
	fingerprint string
}

// Fingerprint identifies the taxonomy and its rules: two taxonomies with
// the same fingerprint assign the same topics.
func (t *Taxonomy) Fingerprint() string { return t.fingerprint }

var defaultTaxonomy = sync.OnceValues(func() (*Taxonomy, error) {
	t, err := pipelines.Files.Open("topics.csv")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	r, err := pipelines.Files.Open("topic_rules.csv")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return Load(t, r)
})

// Default returns the taxonomy embedded in the binary (pipelines/*.csv).
func Default() (*Taxonomy, error) { return defaultTaxonomy() }

// Assign sets doc.Topics with the embedded taxonomy. The embedded tables
// are checked by this package's tests; if they were broken anyway, Assign
// panics, as a broken build should.
func Assign(doc *ingest.Document) {
	t, err := Default()
	if err != nil {
		panic(fmt.Sprintf("topics: embedded taxonomy: %v", err))
	}
	t.Assign(doc)
}

// Topics returns the taxonomy in table order.
func (t *Taxonomy) Topics() []Topic { return append([]Topic(nil), t.topics...) }

// Topic returns the topic with the given slug.
func (t *Taxonomy) Topic(slug string) (Topic, bool) {
	i, ok := t.index[slug]
	if !ok {
		return Topic{}, false
	}
	return t.topics[i], true
}

// Ancestors returns the parents of slug, nearest first.
func (t *Taxonomy) Ancestors(slug string) []string {
	var out []string
	for {
		tp, ok := t.Topic(slug)
		if !ok || tp.Parent == "" {
			return out
		}
		out = append(out, tp.Parent)
		slug = tp.Parent
	}
}

// Assign sets doc.Topics to Match(doc).
func (t *Taxonomy) Assign(doc *ingest.Document) { doc.Topics = t.Match(doc) }

// Weights of a matched field by kind.
var weights = map[Kind]int{Subject: 3, Venue: 2, Keyword: 1}

// Match returns the topic slugs for doc's subjects, keywords and venue
// (see the package comment); never empty.
func (t *Taxonomy) Match(doc *ingest.Document) []string {
	strong := map[string]int{}
	weak := map[string]int{}
	field := func(kind Kind, text string) {
		words := normalise(text)
		if len(words) == 0 {
			return
		}
		hit := map[string]bool{} // slug already scored for this field
		for i, w := range words {
			try := func(ri int) {
				r := &t.rules[ri]
				if r.kind != Any && r.kind != kind {
					return
				}
				if hit[r.slug] || !r.matches(words, i) {
					return
				}
				hit[r.slug] = true
				if r.weak {
					weak[r.slug] += weights[kind]
				} else {
					strong[r.slug] += weights[kind]
				}
			}
			for _, ri := range t.byWord[w] {
				try(ri)
			}
			if len(w) >= stemLen {
				for _, ri := range t.byStem[w[:stemLen]] {
					try(ri)
				}
			}
		}
	}
	for _, s := range doc.Subjects {
		field(Subject, s)
	}
	for _, k := range doc.Keywords {
		field(Keyword, k)
	}
	field(Venue, doc.Venue)

	scores := strong
	if len(scores) == 0 {
		scores = weak
	}
	if len(scores) == 0 {
		return []string{Fallback}
	}
	// Drop ancestors of matched topics: "neuroscience" says more than
	// "life-sciences".
	drop := map[string]bool{}
	for slug := range scores {
		for _, a := range t.Ancestors(slug) {
			drop[a] = true
		}
	}
	out := make([]string, 0, len(scores))
	for slug := range scores {
		if !drop[slug] {
			out = append(out, slug)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		si, sj := scores[out[i]], scores[out[j]]
		if si != sj {
			return si > sj
		}
		return t.index[out[i]] < t.index[out[j]]
	})
	if len(out) > MaxTopics {
		out = out[:MaxTopics]
	}
	return out
}
