package search

import "math"

// stats are the corpus statistics a search scores with: an index's own
// (Index.own), or over a snapshot in segments those of the live documents
// of all segments (multi.go), so that a segment scores its documents as
// one index of all of them would.
type stats struct {
	n float64 // documents, for IDF
	// BM25F length normalisation: norm0[f] + normK[f]·len.
	norm0, normK [NumFields]float64
	// bscale turns the bounds the index was written with (impacts
	// and skip entries, computed with its own average lengths) into
	// bounds under these statistics, for the terms searched in each
	// field mask: at least 1 (bscaleOf); nil means 1 for every mask.
	bscale *[1 << NumFields]float64
	// m, when not nil, is the Multi this index is segment seg of:
	// document frequencies and the words of prefixes and stems are the
	// segments' together.
	m   *Multi
	seg int
}

// newStats returns the statistics of n documents with these average
// field lengths.
func newStats(n float64, avgLen [NumFields]float64) stats {
	st := stats{n: n}
	for f := range NumFields {
		st.norm0[f] = 1 - FieldParams[f].B
		if avgLen[f] > 0 {
			st.normK[f] = FieldParams[f].B / avgLen[f]
		}
	}
	return st
}

// df is the document frequency of ix's term id, whose list has local
// documents: over all segments when the search is over segments.
func (st *stats) df(ix *Index, id int, local int) float64 {
	if st.m == nil {
		return float64(local)
	}
	return float64(st.m.df(ix.term(id)))
}

// scale is the factor of the bounds of a term searched in the fields of
// mask (bscaleOf).
func (st *stats) scale(mask uint8) float64 {
	if st.bscale == nil {
		return 1
	}
	return st.bscale[mask&(1<<NumFields-1)]
}

// idf is the IDF of a term in df documents.
func (st *stats) idf(df float64) float64 {
	return math.Log(1 + (st.n-df+0.5)/(df+0.5))
}

// bscaleOf gives, for each field mask, the factor that makes a bound
// written with average field lengths own a bound under average lengths
// all of a term searched in those fields. A field's weighted frequency
// tf/(1-B+B·len/avg) grows by (1-B+B·len/own)/(1-B+B·len/all), which is
// 1 at len 0 and tends to all/own as len grows, monotonically: so W, a
// sum of such terms over the fields searched, grows by at most
// max(1, all/own) over those fields, and W/(K1+W) by no more than W
// does. The bound written (over the default fields or all fields) is at
// least the W of the fields searched, which the factor of their own
// ratios therefore bounds: a field whose average the segment has short,
// full text often, does not loosen the bounds of the others.
func bscaleOf(own, all [NumFields]float64) *[1 << NumFields]float64 {
	var r [NumFields]float64
	for f := range NumFields {
		r[f] = 1
		if own[f] > 0 && all[f] > own[f] {
			r[f] = all[f] / own[f]
		}
	}
	c := new([1 << NumFields]float64)
	for m := range c {
		c[m] = 1
		for f := range NumFields {
			if m&(1<<f) != 0 {
				c[m] = max(c[m], r[f])
			}
		}
	}
	return c
}
