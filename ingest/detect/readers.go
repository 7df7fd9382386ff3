package detect

import (
	"github.com/openshelf/openshelf/ingest/crossref"
	"github.com/openshelf/openshelf/ingest/jats"
	"github.com/openshelf/openshelf/ingest/openalex"
	"github.com/openshelf/openshelf/ingest/pubmed"
)

// Default returns the readers of this module's ingest packages, keyed by
// format. The JATS reader also takes <pmc-articleset> and OAI-PMH
// responses; packages are read with jats.ReadTar because Sniff has already
// removed the gzip layer. The Crossref reader takes every Crossref variant
// itself (envelopes, lists, JSON Lines, MongoDB exports); OpenAlex input
// other than JSON Lines is converted to JSON Lines first.
func Default() Readers {
	return Readers{
		JATS:        jats.Read,
		OAIPMH:      jats.Read,
		JATSPackage: jats.ReadTar,
		PubMed:      pubmed.Read,
		Crossref:    crossref.Read,
		OpenAlex:    openalex.Read,
	}
}
