package search

import (
	"slices"
	"strconv"
)

// The facet counts of a search over segments: each segment counts its
// matches into one counter that the search reuses (sized for every
// segment), whose counts are then added, by the archive's value, into a
// facetSum and cleared. Licences and topics are coded per segment: a
// Multi maps each segment's codes to the values of all segments once.

// facetCodes are the licences and topics of all segments, sorted, and
// each segment's codes of them.
type facetCodes struct {
	licenses, topics []string
	lic, topic       [][]int // segment -> its code -> the value's index
}

// codes returns the segments' facetCodes, made once.
func (m *Multi) codes() *facetCodes {
	m.codesOnce.Do(func() {
		c := &facetCodes{}
		for _, g := range m.segs {
			c.licenses = append(c.licenses, g.Index.licenses...)
			c.topics = append(c.topics, g.Index.topics...)
		}
		slices.Sort(c.licenses)
		c.licenses = slices.Compact(c.licenses)
		slices.Sort(c.topics)
		c.topics = slices.Compact(c.topics)
		index := func(all, own []string) []int {
			out := make([]int, len(own))
			for i, v := range own {
				out[i], _ = slices.BinarySearch(all, v)
			}
			return out
		}
		for _, g := range m.segs {
			c.lic = append(c.lic, index(c.licenses, g.Index.licenses))
			c.topic = append(c.topic, index(c.topics, g.Index.topics))
		}
		m.facetCodes = c
	})
	return m.facetCodes
}

// facetSum adds up the facet counts of the segments, by value.
type facetSum struct {
	codes    *facetCodes
	license  []int64 // by facetCodes.licenses
	topic    []int64 // by facetCodes.topics
	years    []int64 // years 0..4095, the map for others
	year     map[int32]int64
	source   [len(Sources)]int64
	fulltext [2]int64
}

// newFacetSum returns the counter the segments count the facets of r
// into and the sum of their counts; nil, nil if r counts none or names an
// unknown facet (each segment's search then reports it, in its order).
func (m *Multi) newFacetSum(r *Request) (*facetCounter, *facetSum) {
	fc, err := m.segs[0].Index.newFacets(r.Facets)
	if fc == nil || err != nil {
		return nil, nil
	}
	c := m.codes()
	if fc.topic != nil {
		fc.topic = make([]int64, len(c.topics)) // every segment's codes fit
	}
	sum := &facetSum{codes: c}
	if fc.license != nil {
		sum.license = make([]int64, len(c.licenses))
	}
	if fc.topic != nil {
		sum.topic = make([]int64, len(c.topics))
	}
	if fc.years != nil {
		sum.years, sum.year = make([]int64, len(fc.years)), map[int32]int64{}
	}
	return fc, sum
}

// add adds the counts of segment s in fc to the sum and clears fc for
// the next segment. Codes the segment does not name (a damaged column)
// are not counted, as one index does not report them.
func (sum *facetSum) add(s int, fc *facetCounter) {
	if fc.license != nil {
		lic := sum.codes.lic[s]
		for c, n := range fc.license {
			if n != 0 {
				if c < len(lic) {
					sum.license[lic[c]] += n
				}
				fc.license[c] = 0
			}
		}
	}
	if fc.topic != nil {
		topic := sum.codes.topic[s]
		for c, n := range fc.topic {
			if n != 0 {
				if c < len(topic) {
					sum.topic[topic[c]] += n
				}
				fc.topic[c] = 0
			}
		}
	}
	if fc.years != nil {
		for y, n := range fc.years {
			if n != 0 {
				sum.years[y] += n
				fc.years[y] = 0
			}
		}
		for y, n := range fc.year {
			sum.year[y] += n
		}
		clear(fc.year)
	}
	if fc.source != nil {
		for i, n := range fc.source {
			sum.source[i] += n
		}
		*fc.source = [len(Sources)]int64{}
	}
	if fc.fulltext != nil {
		sum.fulltext[0] += fc.fulltext[0]
		sum.fulltext[1] += fc.fulltext[1]
		*fc.fulltext = [2]int64{}
	}
}

// facets returns the sum as Result.Facets has the facets counted in fc,
// as Index.facetResult gives them.
func (sum *facetSum) facets(fc *facetCounter) map[string][]FacetCount {
	out := map[string][]FacetCount{}
	put := func(name string, vals []string, counts []int64) {
		v := []FacetCount{}
		for i, n := range counts {
			if n > 0 {
				v = append(v, FacetCount{Value: vals[i], Count: n})
			}
		}
		out[name] = v
	}
	if fc.license != nil {
		put(FacetLicense, sum.codes.licenses, sum.license)
	}
	if fc.topic != nil {
		put(FacetTopic, sum.codes.topics, sum.topic)
	}
	if fc.years != nil {
		v := []FacetCount{}
		for y, n := range sum.years {
			if n > 0 {
				v = append(v, FacetCount{Value: strconv.Itoa(y), Count: n})
			}
		}
		for y, n := range sum.year {
			if n > 0 {
				v = append(v, FacetCount{Value: strconv.Itoa(int(y)), Count: n})
			}
		}
		out[FacetYear] = v
	}
	if fc.source != nil {
		put(FacetSource, Sources[:], sum.source[:])
	}
	if fc.fulltext != nil {
		put(FacetFulltext, []string{"false", "true"}, sum.fulltext[:])
	}
	for _, v := range out {
		sortFacet(v)
	}
	return out
}
