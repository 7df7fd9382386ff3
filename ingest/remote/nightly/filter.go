package nightly

import (
	"context"
	"io"
	"strings"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/ingest/remote"
)

// filtered wraps every reader so that each record passes the sources'
// filters (PubMed deletions, OpenAlex merges) before the merger sees it.
// The filters apply to every file, local sources included: a DeleteCitation
// fetched tonight also removes a citation of the locally loaded baseline.
func filtered(rs detect.Readers, results []*remote.Result) detect.Readers {
	var filters []func(string, *ingest.Document) bool
	drop := false
	for _, r := range results {
		if r.Filter != nil {
			filters = append(filters, r.Filter)
		}
		drop = drop || r.DropDeletions
	}
	if len(filters) == 0 && !drop {
		return rs
	}
	out := detect.Readers{}
	for f, read := range rs {
		out[f] = func(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
			return read(ctx, r, origin, &filterSink{Sink: sink, origin: origin, filters: filters, drop: drop})
		}
	}
	return out
}

type filterSink struct {
	ingest.Sink
	origin  string
	filters []func(string, *ingest.Document) bool
	drop    bool
}

func (s *filterSink) Document(d *ingest.Document) error {
	for _, f := range s.filters {
		if !f(s.origin, d) {
			return nil
		}
	}
	return s.Sink.Document(d)
}

func (s *filterSink) Delete(d ingest.Deletion) error {
	if s.drop {
		return nil
	}
	return s.Sink.Delete(d)
}

// keepRecord applies the sources' filters to the records a delta build
// carries: a record read from a file of the mirror on an earlier night
// passes tonight's filters as if read again.
func keepRecord(results []*remote.Result) func(string, *ingest.Document) bool {
	var filters []func(string, *ingest.Document) bool
	for _, r := range results {
		if r.Filter != nil {
			filters = append(filters, r.Filter)
		}
	}
	return func(origin string, d *ingest.Document) bool {
		file, _, _ := strings.Cut(origin, "!")
		for _, f := range filters {
			if !f(file, d) {
				return false
			}
		}
		return true
	}
}
