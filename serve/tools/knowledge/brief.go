package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/registry"
)

// BriefInput is research_brief's input.
type BriefInput struct {
	Query       string `json:"query" minLength:"3" maxLength:"200" doc:"The research question or topic."`
	MaxPapers   int    `json:"max_papers,omitempty" min:"1" max:"8" default:"5" doc:"Papers to return."`
	YearFrom    *int   `json:"year_from,omitempty" min:"1900" max:"9999" doc:"Earliest publication year."`
	IncludeLive bool   `json:"include_live,omitempty" default:"true" doc:"Also search OpenAlex and Crossref."`
	Synthesize  bool   `json:"synthesize,omitempty" default:"true" doc:"Add a short extractive synthesis citing papers as [n], quoting only openly licensed abstracts."`
}

// Paper is a paper of a brief.
type Paper struct {
	// N is the paper's citation number in the synthesis.
	N         int      `json:"n"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	Year      int      `json:"year,omitempty"`
	Venue     string   `json:"venue,omitempty"`
	DOI       string   `json:"doi,omitempty"`
	Citations int      `json:"citations"`
	// OpenLicence: CC0, PDM, CC BY or CC BY-SA; only then is the abstract
	// given and quoted.
	OpenLicence bool   `json:"open_licence"`
	License     string `json:"license"`
	LicenseURL  string `json:"license_url,omitempty"`
	// Attribution, CopyrightNotice and ShareAlikeNotice come with archive
	// papers (the archive's rights fields).
	Attribution      string `json:"attribution,omitempty"`
	CopyrightNotice  string `json:"copyright_notice,omitempty"`
	ShareAlikeNotice string `json:"share_alike_notice,omitempty"`
	// Source is where the metadata comes from: archive, openalex or
	// crossref; Sources lists every source that found the paper.
	Source    string   `json:"source"`
	Sources   []string `json:"sources"`
	ArchiveID string   `json:"archive_id,omitempty"`
	URL       string   `json:"url,omitempty"`
	Abstract  string   `json:"abstract,omitempty"`

	abstract  string  // as found, given out only when OpenLicence
	relevance float64 // 0..1 within its source
	score     float64
}

// SourceStatus says what each source contributed.
type SourceStatus struct {
	Name    string `json:"name"`
	Status  string `json:"status"` // ok, error, skipped
	Results int    `json:"results"`
	Error   string `json:"error,omitempty"`
}

// Synthesis is the extractive synthesis: sentences from permitted
// abstracts, each citing its paper.
type Synthesis struct {
	Text      string          `json:"text"`
	Sentences []CitedSentence `json:"sentences"`
}

// CitedSentence is one sentence of the synthesis and the paper it quotes.
type CitedSentence struct {
	Text string `json:"text"`
	Cite int    `json:"cite"`
}

// BriefOutput is research_brief's answer.
type BriefOutput struct {
	Query     string         `json:"query"`
	Papers    []Paper        `json:"papers"`
	Sources   []SourceStatus `json:"sources"`
	Synthesis *Synthesis     `json:"synthesis"`
	// Note explains a missing synthesis.
	Note string `json:"note,omitempty"`
}

// prepared is the result of the pre-payment search, reused by the paid
// call.
type prepared struct {
	papers  []Paper
	sources []SourceStatus
}

func (in *BriefInput) key() string {
	y := 0
	if in.YearFrom != nil {
		y = *in.YearFrom
	}
	return fmt.Sprintf("%q|%d|%d|%t", strings.ToLower(strings.Join(strings.Fields(in.Query), " ")), in.MaxPapers, y, in.IncludeLive)
}

func (t *Tools) briefEndpoint() *registry.Endpoint {
	return registry.Spec[BriefInput]{
		Name: "research_brief", Method: http.MethodPost, Path: "/v1/research-brief", Group: registry.GroupTools,
		Price:   PriceBrief,
		Summary: "A research brief: papers from the archive, OpenAlex and Crossref ranked by relevance and citations, with an extractive synthesis citing [n].",
		Description: "Each paper has authors, year, venue, DOI, citation count and open-licence status; abstracts only for " +
			"CC0, PDM, CC BY and CC BY-SA papers, with their rights fields. The synthesis quotes only those abstracts. " +
			"A query nothing covers is a free 404 not_covered: the search runs before payment and the paid call reuses it.",
		Output: BriefOutput{},
		Tool:   &registry.Tool{OpenWorld: true},
		Check: func(ctx context.Context, in *BriefInput) error {
			_, err := t.prepare(ctx, in)
			return err
		},
		Handle: func(ctx context.Context, in *BriefInput) (*registry.Result, error) {
			out, err := t.Brief(ctx, in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}

// Brief runs research_brief.
func (t *Tools) Brief(ctx context.Context, in *BriefInput) (*BriefOutput, error) {
	p, err := t.prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &BriefOutput{Query: in.Query, Papers: make([]Paper, len(p.papers)), Sources: p.sources}
	copy(out.Papers, p.papers)
	for i := range out.Papers {
		if out.Papers[i].OpenLicence {
			out.Papers[i].Abstract = out.Papers[i].abstract
		}
	}
	if in.Synthesize {
		out.Synthesis = synthesize(in.Query, out.Papers)
		if out.Synthesis == nil {
			out.Note = "no openly licensed abstract to quote: synthesis omitted"
		}
	}
	return out, nil
}

// prepare returns the ranked papers, from the cache when the same input
// was searched recently (the pre-payment check and the paid call).
func (t *Tools) prepare(ctx context.Context, in *BriefInput) (*prepared, error) {
	if in.MaxPapers <= 0 {
		in.MaxPapers = 5
	}
	key := in.key()
	if p, ok := t.briefs.get(key); ok {
		return p, nil
	}
	p, err := t.gather(ctx, in)
	if err != nil {
		return nil, err
	}
	t.briefs.put(key, p)
	return p, nil
}

// archiveCandidates is how many archive hits a brief considers.
const archiveCandidates = 10

func (t *Tools) gather(ctx context.Context, in *BriefInput) (*prepared, error) {
	var (
		wg      sync.WaitGroup
		results [3][]Paper
		errs    [3]error
	)
	names := [3]string{"archive", "openalex", "crossref"}
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[0], errs[0] = t.archivePapers(ctx, in)
	}()
	if in.IncludeLive {
		for i, fn := range []func(context.Context, string, *int) ([]Paper, error){t.openAlex, t.crossref} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i+1], errs[i+1] = t.cachedLive(ctx, names[i+1], fn, in)
			}()
		}
	}
	wg.Wait()
	p := &prepared{}
	var firstErr error
	for i, name := range names {
		st := SourceStatus{Name: name, Status: "ok", Results: len(results[i])}
		switch {
		case i > 0 && !in.IncludeLive:
			st.Status = "skipped"
		case errs[i] != nil:
			st.Status, st.Error = "error", apierr.From(errs[i]).Message
			if firstErr == nil {
				firstErr = errs[i]
			}
			t.cfg.Logger.Warn("research_brief: source failed", "source", name, "err", errs[i])
		}
		p.sources = append(p.sources, st)
	}
	p.papers = rank(merge(results[0], results[1], results[2]), in.MaxPapers)
	if len(p.papers) == 0 {
		if firstErr != nil {
			// Nothing found because a source failed: say so, not "not covered".
			return nil, firstErr
		}
		return nil, apierr.NotFound("not_covered",
			"nothing in the archive, OpenAlex or Crossref matches this query; nothing was charged")
	}
	return p, nil
}

// cachedLive asks a live source, reusing a recent answer to the same
// question.
func (t *Tools) cachedLive(ctx context.Context, name string, fn func(context.Context, string, *int) ([]Paper, error), in *BriefInput) ([]Paper, error) {
	y := 0
	if in.YearFrom != nil {
		y = *in.YearFrom
	}
	key := fmt.Sprintf("%s|%q|%d", name, strings.ToLower(strings.Join(strings.Fields(in.Query), " ")), y)
	if ps, ok := t.live.get(key); ok {
		return ps, nil
	}
	ps, err := fn(ctx, in.Query, in.YearFrom)
	if err != nil {
		return nil, err
	}
	t.live.put(key, ps)
	return ps, nil
}

// archivePapers searches the archive: every word in the title, keywords
// or authors; when that finds nothing, the query's longest words alone.
func (t *Tools) archivePapers(ctx context.Context, in *BriefInput) ([]Paper, error) {
	if t.archive == nil {
		return nil, nil
	}
	res, err := t.archive.Search(ctx, &archive.SearchInput{Q: in.Query, YearFrom: in.YearFrom, Limit: archiveCandidates})
	if err != nil {
		return nil, err
	}
	items := res.Items
	if len(items) == 0 {
		// Every word must match in the archive: a question rarely does.
		// Retry with its two longest content words.
		if kw := keywords(in.Query, 2); kw != "" && kw != in.Query {
			if res, err = t.archive.Search(ctx, &archive.SearchInput{Q: kw, YearFrom: in.YearFrom, Limit: archiveCandidates}); err != nil {
				return nil, err
			}
			items = res.Items
		}
	}
	maxScore := 0.0
	for _, e := range items {
		if e.Score != nil && *e.Score > maxScore {
			maxScore = *e.Score
		}
	}
	out := make([]Paper, 0, len(items))
	for i, e := range items {
		d, err := t.archive.Document(ctx, e.ID)
		if errors.Is(err, apierr.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rel := 1 - float64(i)/float64(len(items)+1)
		if e.Score != nil && maxScore > 0 {
			rel = *e.Score / maxScore
		}
		p := Paper{Title: d.Title, Year: d.Year, Venue: d.Venue, DOI: normaliseDOI(d.DOI), OpenLicence: true,
			License: d.License, LicenseURL: d.LicenseURL, Attribution: d.Attribution, CopyrightNotice: d.CopyrightNotice,
			ShareAlikeNotice: d.ShareAlikeNotice, Source: "archive", Sources: []string{"archive"}, ArchiveID: d.ID,
			Authors: make([]string, 0, len(d.Authors)), abstract: d.Abstract, relevance: rel}
		for _, a := range d.Authors {
			p.Authors = append(p.Authors, a.Name)
		}
		out = append(out, p)
	}
	return out, nil
}

// merge joins the sources' papers by DOI (or title when a paper has no
// DOI): the archive's metadata and rights win; the highest citation count
// and relevance are kept.
func merge(lists ...[]Paper) []Paper {
	var out []Paper
	index := map[string]int{}
	for _, list := range lists {
		for _, p := range list {
			k := p.DOI
			if k == "" {
				k = "title:" + strings.ToLower(strings.Join(strings.Fields(p.Title), " "))
			}
			i, ok := index[k]
			if !ok {
				index[k] = len(out)
				out = append(out, p)
				continue
			}
			q := &out[i]
			q.Sources = append(q.Sources, p.Source)
			q.Citations = max(q.Citations, p.Citations)
			q.relevance = max(q.relevance, p.relevance)
			if q.abstract == "" && q.OpenLicence && p.OpenLicence {
				q.abstract = p.abstract
			}
			if !q.OpenLicence && p.OpenLicence {
				q.OpenLicence, q.License, q.LicenseURL, q.abstract = true, p.License, p.LicenseURL, p.abstract
			}
		}
	}
	return out
}

// rank orders by relevance plus a citation bonus (log scale, so citations
// break ties among relevant papers rather than outrank relevance) and
// numbers the first n.
func rank(ps []Paper, n int) []Paper {
	for i := range ps {
		ps[i].score = ps[i].relevance + 0.1*math.Log10(1+float64(ps[i].Citations))
		if len(ps[i].Sources) > 1 {
			ps[i].score += 0.1 // found by several sources
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].score > ps[j].score })
	if len(ps) > n {
		ps = ps[:n]
	}
	for i := range ps {
		ps[i].N = i + 1
	}
	return ps
}

// maxSynthesis is the number of sentences of a synthesis.
const maxSynthesis = 5

// synthesize picks, from each permitted abstract, the sentence sharing
// most words with the query, and cites it. Papers without an open licence
// are never quoted.
func synthesize(query string, papers []Paper) *Synthesis {
	terms := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(query), notWordRune) {
		if len(w) > 2 && !briefStop[w] {
			terms[w] = true
		}
	}
	s := &Synthesis{}
	for _, p := range papers {
		if !p.OpenLicence || p.Abstract == "" || len(s.Sentences) == maxSynthesis {
			continue
		}
		best, bestScore := "", -1
		for _, sent := range splitSentences(p.Abstract) {
			score := 0
			for _, w := range strings.FieldsFunc(strings.ToLower(sent), notWordRune) {
				if terms[w] {
					score++
				}
			}
			if len(sent) < 40 || len(sent) > 400 {
				score -= 2 // fragments and run-ons read badly out of context
			}
			if score > bestScore {
				best, bestScore = sent, score
			}
		}
		if best != "" {
			s.Sentences = append(s.Sentences, CitedSentence{Text: best, Cite: p.N})
		}
	}
	if len(s.Sentences) == 0 {
		return nil
	}
	parts := make([]string, len(s.Sentences))
	for i, c := range s.Sentences {
		parts[i] = fmt.Sprintf("%s [%d]", strings.TrimRight(c.Text, " "), c.Cite)
	}
	s.Text = strings.Join(parts, " ")
	return s
}

// keywords returns the n longest words of q that are not stop words.
func keywords(q string, n int) string {
	var ws []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), notWordRune) {
		if len(w) > 3 && !briefStop[w] && !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return len(ws[i]) > len(ws[j]) })
	if len(ws) > n {
		ws = ws[:n]
	}
	return strings.Join(ws, " ")
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

var briefStop = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "that": true,
	"this": true, "are": true, "was": true, "were": true, "what": true, "which": true, "how": true, "does": true,
	"about": true, "into": true, "between": true, "their": true, "its": true, "literature": true, "say": true,
	"says": true, "known": true, "effect": true, "effects": true, "role": true, "review": true, "studies": true,
	"study": true, "there": true, "have": true, "been": true, "when": true, "where": true, "they": true}

// splitSentences splits an abstract at ". ", "! " or "? " before an
// upper-case letter or a digit.
func splitSentences(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs)-2; i++ {
		if (rs[i] == '.' || rs[i] == '!' || rs[i] == '?') && rs[i+1] == ' ' && (unicode.IsUpper(rs[i+2]) || unicode.IsDigit(rs[i+2])) {
			out = append(out, strings.TrimSpace(string(rs[start:i+1])))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(string(rs[start:])); rest != "" {
		out = append(out, rest)
	}
	return out
}
