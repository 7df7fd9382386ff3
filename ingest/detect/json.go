package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Keys that only a Crossref work has (Crossref spells its keys with
// hyphens and an upper-case DOI/URL/ISSN).
var crossrefKeys = map[string]bool{
	"reference-count": true, "container-title": true, "content-domain": true,
	"is-referenced-by-count": true, "published-print": true, "published-online": true,
	"short-container-title": true, "references-count": true, "deposited": true,
	"ISSN": true, "issn-type": true, "created": true, "indexed": true, "member": true,
	"prefix": true,
}

// Keys that only an OpenAlex work has.
var openalexKeys = map[string]bool{
	"publication_year": true, "publication_date": true, "authorships": true,
	"primary_location": true, "best_oa_location": true, "abstract_inverted_index": true,
	"referenced_works": true, "related_works": true, "cited_by_count": true,
	"open_access": true, "primary_topic": true, "counts_by_year": true,
}

// jsonFacts is what one pass over a JSON prefix saw.
type jsonFacts struct {
	topKeys      map[string]bool // keys of the first top-level object
	crossref     int             // distinct Crossref-only keys at any depth
	openalex     int             // distinct OpenAlex-only keys at any depth
	hasDOIKey    bool            // a "DOI" key (Crossref's spelling)
	openalexWork bool            // "id": "https://openalex.org/W..."
	mongo        bool            // "$oid", "$numberLong", "$date" keys
	messageType  string          // Crossref envelope "message-type"
	firstDone    bool            // the first top-level value ended inside the prefix
	firstLine    bool            // the first value ended on its first line
	topArray     bool            // the first top-level value is an array
	syntaxErr    error
}

// scanJSON walks the tokens of a JSON prefix (which may be cut anywhere)
// and records which keys occur. It never fails: a cut or a syntax error
// simply ends the walk.
func scanJSON(t []byte) jsonFacts {
	f := jsonFacts{topKeys: map[string]bool{}}
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	type frame struct {
		object    bool
		expectKey bool
	}
	var stack []frame
	lastKey := ""
	values := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			// io.EOF or a syntax error (including a cut in the middle of a
			// token): what was seen so far is the evidence.
			var se *json.SyntaxError
			if (values == 0 && len(stack) == 0) || errors.As(err, &se) {
				f.syntaxErr = err
			}
			break
		}
		if len(stack) == 0 {
			if values == 1 {
				break // a second top-level value: enough seen
			}
			values++
		}
		isKey := false
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
			if d, ok := tok.(json.Delim); !ok || d != '}' {
				isKey = true
			}
		}
		if isKey {
			k, _ := tok.(string)
			lastKey = k
			stack[len(stack)-1].expectKey = false
			if len(stack) == 1 {
				f.topKeys[k] = true
			}
			if !seen[k] {
				seen[k] = true
				switch {
				case k == "DOI":
					f.hasDOIKey = true
				case k == "$oid" || k == "$numberLong" || k == "$date" || k == "$numberInt":
					f.mongo = true
				case crossrefKeys[k]:
					f.crossref++
				case openalexKeys[k]:
					f.openalex++
				}
			}
			continue
		}
		// A value (or the start/end of a container).
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if len(stack) == 0 && tok == '[' {
					f.topArray = true
				}
				stack = append(stack, frame{object: tok == '{', expectKey: true})
				continue
			case '}', ']':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		case string:
			if len(stack) > 0 && stack[len(stack)-1].object {
				switch lastKey {
				case "id":
					if isOpenAlexWorkID(tok) {
						f.openalexWork = true
					}
				case "message-type":
					if len(stack) == 1 {
						f.messageType = tok
					}
				}
			}
		}
		// The value is complete: the enclosing object expects a key next.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
		if len(stack) == 0 && !f.firstDone {
			f.firstDone = true
			end := dec.InputOffset()
			f.firstLine = !bytes.Contains(t[:end], []byte("\n"))
		}
	}
	return f
}

func isOpenAlexWorkID(s string) bool {
	s = strings.ToLower(s)
	for _, p := range []string{"https://openalex.org/w", "http://openalex.org/w", "openalex.org/w"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest != "" && strings.Trim(rest, "0123456789") == ""
		}
	}
	return false
}

// classifyJSON classifies a JSON document or JSON Lines stream. t starts
// with '{' or '['.
func classifyJSON(t []byte) Info {
	f := scanJSON(t)
	if f.syntaxErr != nil && !f.hasDOIKey && !f.openalexWork && f.crossref+f.openalex == 0 {
		return Info{Reason: "starts like JSON but is not: " + f.syntaxErr.Error()}
	}
	if f.topKeys["message-type"] || (f.topKeys["status"] && f.topKeys["message"]) {
		switch f.messageType {
		case "work", "work-list", "":
			v := VariantEnvelope
			if f.mongo {
				v = VariantMongo
			}
			if f.messageType == "" && !f.hasDOIKey && f.crossref < 2 {
				break
			}
			return Info{Format: Crossref, Variant: v}
		default:
			return Info{Reason: "Crossref API response of message-type " + f.messageType + ", not works"}
		}
	}
	// Score both candidates; a strong signal counts more than loose keys.
	cr, oa := f.crossref, f.openalex
	if f.hasDOIKey {
		cr += 3
	}
	if f.openalexWork {
		oa += 3
	}
	var format Format
	switch {
	case cr >= 2 && cr > oa:
		format = Crossref
	case oa >= 2 && oa > cr:
		format = OpenAlex
	case cr == 0 && oa == 0:
		return Info{Reason: "JSON without the keys of a Crossref or OpenAlex work"}
	default:
		return Info{Reason: "JSON that is neither clearly Crossref nor clearly OpenAlex"}
	}
	var v string
	switch {
	case f.mongo:
		v = VariantMongo
	case f.topArray:
		v = VariantArray
	case format == Crossref && f.topKeys["items"]:
		v = VariantList
	case format == OpenAlex && f.topKeys["results"]:
		v = VariantAPIPage
	case (f.firstDone && f.firstLine) || (!f.firstDone && !bytes.Contains(t, []byte("\n"))):
		// The first value fits on its first line, or the first line
		// is longer than the prefix: JSON Lines (possibly one line).
		v = VariantJSONLines
	default:
		v = VariantJSON
	}
	return Info{Format: format, Variant: v}
}
