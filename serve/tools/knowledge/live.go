package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// liveRows is how many works each live source is asked for.
const liveRows = 10

// liveMaxBytes caps a live answer.
const liveMaxBytes = 8 << 20

// getJSON fetches a live API URL and decodes its JSON body.
func (t *Tools) getJSON(ctx context.Context, u string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, t.cfg.LiveTimeout)
	defer cancel()
	resp, err := t.fetch.Get(ctx, u, fetch.Options{
		Header:   http.Header{"Accept": {"application/json"}},
		MaxBytes: liveMaxBytes,
		// An API the operator configured, not a crawl: robots.txt governs
		// crawlers (RFC 9309), and both APIs invite programmatic use.
		IgnoreRobots: true,
	})
	if err != nil {
		return err
	}
	if err := resp.CheckStatus(); err != nil {
		return err
	}
	if err := json.Unmarshal(resp.Body, v); err != nil {
		return apierr.New(apierr.ErrUpstream, "upstream_invalid", fmt.Sprintf("%s answered invalid JSON: %v", resp.URL, err))
	}
	return nil
}

// openAlexWorks is the part of an OpenAlex /works answer we read.
type openAlexWorks struct {
	Results []struct {
		ID              string `json:"id"`
		DOI             string `json:"doi"`
		Title           string `json:"title"`
		DisplayName     string `json:"display_name"`
		PublicationYear int    `json:"publication_year"`
		CitedByCount    int    `json:"cited_by_count"`
		Authorships     []struct {
			Author struct {
				DisplayName string `json:"display_name"`
			} `json:"author"`
		} `json:"authorships"`
		PrimaryLocation *oaLocation      `json:"primary_location"`
		BestOALocation  *oaLocation      `json:"best_oa_location"`
		AbstractIndex   map[string][]int `json:"abstract_inverted_index"`
	} `json:"results"`
}

type oaLocation struct {
	License        string `json:"license"`
	LandingPageURL string `json:"landing_page_url"`
	Source         *struct {
		DisplayName string `json:"display_name"`
	} `json:"source"`
}

// openAlex searches OpenAlex works.
func (t *Tools) openAlex(ctx context.Context, query string, yearFrom *int) ([]Paper, error) {
	q := url.Values{"search": {query}, "per_page": {strconv.Itoa(liveRows)}}
	if yearFrom != nil {
		q.Set("filter", fmt.Sprintf("from_publication_date:%04d-01-01", *yearFrom))
	}
	if t.cfg.Mailto != "" {
		q.Set("mailto", t.cfg.Mailto)
	}
	var w openAlexWorks
	if err := t.getJSON(ctx, strings.TrimRight(t.cfg.OpenAlexURL, "/")+"/works?"+q.Encode(), &w); err != nil {
		return nil, err
	}
	out := make([]Paper, 0, len(w.Results))
	for i, r := range w.Results {
		p := Paper{Title: firstNonEmpty(r.Title, r.DisplayName), Year: r.PublicationYear, DOI: normaliseDOI(r.DOI),
			Citations: r.CitedByCount, Source: "openalex", Sources: []string{"openalex"}, URL: r.ID,
			Authors: []string{}, relevance: 1 - float64(i)/float64(len(w.Results)+1)}
		for _, a := range r.Authorships {
			p.Authors = append(p.Authors, a.Author.DisplayName)
		}
		lic := ""
		for _, loc := range []*oaLocation{r.BestOALocation, r.PrimaryLocation} {
			if loc != nil && lic == "" {
				lic = loc.License
			}
		}
		if r.PrimaryLocation != nil && r.PrimaryLocation.Source != nil {
			p.Venue = r.PrimaryLocation.Source.DisplayName
		}
		p.License, p.LicenseURL, p.OpenLicence = openAlexLicence(lic)
		p.abstract = invertedAbstract(r.AbstractIndex)
		if yearFrom != nil && p.Year > 0 && p.Year < *yearFrom {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// openAlexLicence maps OpenAlex's licence ids to the archive's families.
func openAlexLicence(id string) (family, licenceURL string, open bool) {
	switch strings.ToLower(id) {
	case "cc-by":
		return "CC-BY", "https://creativecommons.org/licenses/by/4.0/", true
	case "cc-by-sa":
		return "CC-BY-SA", "https://creativecommons.org/licenses/by-sa/4.0/", true
	case "cc0":
		return "CC0", "https://creativecommons.org/publicdomain/zero/1.0/", true
	case "public-domain":
		return "PDM", "https://creativecommons.org/publicdomain/mark/1.0/", true
	}
	return id, "", false
}

// invertedAbstract rebuilds an abstract from OpenAlex's inverted index.
func invertedAbstract(idx map[string][]int) string {
	if len(idx) == 0 {
		return ""
	}
	type pos struct {
		at   int
		word string
	}
	var ps []pos
	for w, ats := range idx {
		for _, a := range ats {
			ps = append(ps, pos{a, w})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].at < ps[j].at })
	words := make([]string, len(ps))
	for i, p := range ps {
		words[i] = p.word
	}
	return strings.Join(words, " ")
}

// crossrefWorks is the part of a Crossref /works answer we read.
type crossrefWorks struct {
	Status  string `json:"status"`
	Message struct {
		Items []struct {
			DOI            string   `json:"DOI"`
			Title          []string `json:"title"`
			ContainerTitle []string `json:"container-title"`
			Abstract       string   `json:"abstract"`
			Referenced     int      `json:"is-referenced-by-count"`
			URL            string   `json:"URL"`
			Author         []struct {
				Given  string `json:"given"`
				Family string `json:"family"`
				Name   string `json:"name"`
			} `json:"author"`
			Issued struct {
				DateParts [][]*int `json:"date-parts"`
			} `json:"issued"`
			License []struct {
				URL            string `json:"URL"`
				ContentVersion string `json:"content-version"`
			} `json:"license"`
		} `json:"items"`
	} `json:"message"`
}

// crossref searches Crossref works.
func (t *Tools) crossref(ctx context.Context, query string, yearFrom *int) ([]Paper, error) {
	q := url.Values{"query": {query}, "rows": {strconv.Itoa(liveRows)}}
	if yearFrom != nil {
		q.Set("filter", fmt.Sprintf("from-pub-date:%04d", *yearFrom))
	}
	if t.cfg.Mailto != "" {
		q.Set("mailto", t.cfg.Mailto)
	}
	var w crossrefWorks
	if err := t.getJSON(ctx, strings.TrimRight(t.cfg.CrossrefURL, "/")+"/works?"+q.Encode(), &w); err != nil {
		return nil, err
	}
	out := make([]Paper, 0, len(w.Message.Items))
	for i, it := range w.Message.Items {
		p := Paper{DOI: normaliseDOI(it.DOI), Citations: it.Referenced, Source: "crossref", Sources: []string{"crossref"},
			URL: it.URL, Authors: []string{}, relevance: 1 - float64(i)/float64(len(w.Message.Items)+1)}
		if len(it.Title) > 0 {
			p.Title = it.Title[0]
		}
		if len(it.ContainerTitle) > 0 {
			p.Venue = it.ContainerTitle[0]
		}
		if len(it.Issued.DateParts) > 0 && len(it.Issued.DateParts[0]) > 0 && it.Issued.DateParts[0][0] != nil {
			p.Year = *it.Issued.DateParts[0][0]
		}
		for _, a := range it.Author {
			p.Authors = append(p.Authors, firstNonEmpty(a.Name, strings.TrimSpace(a.Given+" "+a.Family)))
		}
		var urls []string
		for _, l := range it.License {
			urls = append(urls, l.URL)
		}
		p.License, p.LicenseURL, p.OpenLicence = crossrefLicence(urls)
		p.abstract = jatsText(it.Abstract)
		if yearFrom != nil && p.Year > 0 && p.Year < *yearFrom {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// crossrefLicence decides from a work's licence URLs: open only when some
// URL is CC0, PDM, CC BY or CC BY-SA and none carries NC or ND terms.
func crossrefLicence(urls []string) (family, licenceURL string, open bool) {
	for _, u := range urls {
		l := strings.ToLower(u)
		if strings.Contains(l, "-nc") || strings.Contains(l, "-nd") || strings.Contains(l, "/nc") || strings.Contains(l, "/nd") {
			return "", u, false
		}
	}
	for _, u := range urls {
		l := strings.ToLower(u)
		switch {
		case strings.Contains(l, "creativecommons.org/licenses/by-sa/"):
			return "CC-BY-SA", u, true
		case strings.Contains(l, "creativecommons.org/licenses/by/"):
			return "CC-BY", u, true
		case strings.Contains(l, "creativecommons.org/publicdomain/zero/"):
			return "CC0", u, true
		case strings.Contains(l, "creativecommons.org/publicdomain/mark/"):
			return "PDM", u, true
		}
	}
	if len(urls) > 0 {
		return "", urls[0], false
	}
	return "", "", false
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// jatsText turns Crossref's JATS abstract into plain text.
func jatsText(s string) string {
	if s == "" {
		return ""
	}
	s = tagRE.ReplaceAllString(s, " ")
	s = html.UnescapeString(s)
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimPrefix(s, "Abstract ")
}

func normaliseDOI(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
