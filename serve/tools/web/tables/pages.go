package tables

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// maxPDFPages is how many PDF pages extract_tables reads per call, both the
// default (the first maxPDFPages) and the most a pages selection may name.
const maxPDFPages = 30

// pageRange is one item of a pages selection: lo..hi inclusive, hi == 0 for
// an open range ("5-", up to the last page).
type pageRange struct{ lo, hi int }

// pageSpec is a parsed pages selection such as "1-3,5,10-".
type pageSpec []pageRange

// parsePages parses a pages selection: comma-separated page numbers (1-based)
// and ranges "a-b" or "a-" (to the end). Whitespace around items is ignored.
// An empty string is the default selection (nil spec). Closed ranges are
// checked against maxPDFPages here, so an oversized request fails before the
// document is fetched; open ranges are checked by resolve.
func parsePages(s string) (pageSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var spec pageSpec
	total := 0
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty item in %q", s)
		}
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := pageNumber(lo)
		if err != nil {
			return nil, err
		}
		r := pageRange{lo: a, hi: a}
		if isRange {
			r.hi = 0
			if hi = strings.TrimSpace(hi); hi != "" {
				b, err := pageNumber(hi)
				if err != nil {
					return nil, err
				}
				if b < a {
					return nil, fmt.Errorf("range %q runs backwards", item)
				}
				r.hi = b
			}
		}
		if r.hi != 0 {
			total += r.hi - r.lo + 1
			if total > maxPDFPages {
				return nil, fmt.Errorf("selects more than %d pages", maxPDFPages)
			}
		}
		spec = append(spec, r)
	}
	return spec, nil
}

func pageNumber(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("missing page number")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a page number", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, fmt.Errorf("page %q out of range", s)
	}
	return n, nil
}

// resolve returns the selected pages of a document with n pages, ascending
// and without duplicates. Pages past the end are dropped; a selection with
// nothing left, or with more than maxPDFPages pages, is an error.
func (spec pageSpec) resolve(n int) ([]int, error) {
	if n <= 0 {
		return nil, fmt.Errorf("the document has no pages")
	}
	if spec == nil {
		out := make([]int, 0, min(n, maxPDFPages))
		for p := 1; p <= n && p <= maxPDFPages; p++ {
			out = append(out, p)
		}
		return out, nil
	}
	seen := make(map[int]bool)
	for _, r := range spec {
		hi := r.hi
		if hi == 0 || hi > n {
			hi = n
		}
		for p := r.lo; p <= hi; p++ {
			if !seen[p] {
				seen[p] = true
				if len(seen) > maxPDFPages {
					return nil, fmt.Errorf("selects more than %d pages", maxPDFPages)
				}
			}
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("no selected page exists (the document has %d pages)", n)
	}
	// A hostile document can claim any page count, so sort what was seen
	// rather than walk 1..n.
	out := slices.Sorted(maps.Keys(seen))
	return out, nil
}
