package specs

import "github.com/openshelf/openshelf/ingest"

// Passages lists a document's title, abstract and full-text paragraphs in
// reading order, each with where it is.
func Passages(title, abstract string, sections []ingest.Section) []Passage {
	out := []Passage{{"title", title}, {"abstract", abstract}}
	var walk func([]ingest.Section, string)
	walk = func(secs []ingest.Section, path string) {
		for _, s := range secs {
			p := path
			if s.Title != "" {
				p = "section: " + s.Title
			}
			for _, para := range s.Paragraphs {
				out = append(out, Passage{p, para})
			}
			walk(s.Children, p)
		}
	}
	walk(sections, "body")
	return out
}
