package ingest

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/klauspost/compress/s2"
)

// Source records
//
// A document merged from several records (a PMC article, its PubMed
// record, the OpenAlex and Crossref works) cannot be merged again without
// one of them once only the merged document is kept: a PubMed deletion or
// a withdrawn PMC version must leave the rest of the work as a build
// without that record would. So a Merger configured with Records attaches
// to each merged document its records, and a later build carries the
// records (Carry) instead of the document.
//
// A record is kept in the spill encoding (merge.go), compressed with S2,
// in order of arrival. A superseded record, which a merge uses only for
// its ids, is kept as a stub of its ids, sources, update time and origin:
// it stays superseded by the newer record kept beside it. The encoding is
// versioned (spillVersion); a version this code cannot read fails
// DecodeRecord with ErrRecordVersion.

// ErrRecordVersion means a kept record was written by a version of the
// encoding this code does not read.
var ErrRecordVersion = fmt.Errorf("ingest: record encoding version not supported")

// DecodeRecord decodes one of Document.Records.
func DecodeRecord(b []byte) (*Document, error) {
	plain, err := s2.Decode(nil, b)
	if err != nil {
		return nil, fmt.Errorf("ingest: record: %w", err)
	}
	if len(plain) > 0 && plain[0] != spillVersion {
		return nil, ErrRecordVersion
	}
	d, err := spillDecode(plain)
	if err != nil {
		return nil, fmt.Errorf("ingest: record: %w", err)
	}
	return d, nil
}

// records returns a group's records in order of arrival: members (in
// precedence order) with their decoded docs and their records as kept
// (S2 blocks of the spill encoding).
func (m *Merger) records(members []uint32, docs []*Document, raws [][]byte) [][]byte {
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(members[a], members[b]) })
	out := make([][]byte, len(idx))
	for j, i := range idx {
		if !m.superseded(members[i], members) {
			out[j] = raws[i]
			continue
		}
		d := docs[i]
		stub := Document{ID: d.ID, Aliases: d.Aliases, DOI: d.DOI, PMID: d.PMID, PMCID: d.PMCID,
			OpenAlex: d.OpenAlex, Updated: d.Updated, Sources: d.Sources, Origin: d.Origin}
		out[j] = s2.Encode(nil, spillEncode(nil, &stub))
	}
	return out
}
