package jats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
)

// collect is a Sink that keeps everything; err, when set, is returned by
// Document.
type collect struct {
	docs     []*ingest.Document
	dels     []ingest.Deletion
	problems []ingest.Problem
	err      error
}

func (c *collect) Document(d *ingest.Document) error {
	if c.err != nil {
		return c.err
	}
	c.docs = append(c.docs, d)
	return nil
}
func (c *collect) Delete(d ingest.Deletion) error { c.dels = append(c.dels, d); return nil }
func (c *collect) Problem(p ingest.Problem)       { c.problems = append(c.problems, p) }

// evidenceReader is a Reader whose decisions keep the raw evidence, so the
// tests check what was extracted whatever the licence rules decide.
func evidenceReader() *Reader {
	return &Reader{
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		decide: func(ev []licence.Evidence, _ time.Time) licence.Decision {
			return licence.Decision{Reason: licence.Missing, Evidence: ev}
		},
	}
}

// readFile reads one fixture and requires exactly one document.
func readFile(t *testing.T, rd *Reader, rel string) *ingest.Document {
	t.Helper()
	path := fixtures.Path(t, "jats", rel)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sink collect
	if err := rd.Read(context.Background(), f, path, &sink); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(sink.problems) > 0 || len(sink.docs) != 1 {
		t.Fatalf("got %d documents and problems %v, want one document", len(sink.docs), sink.problems)
	}
	d := sink.docs[0]
	if d.Origin != path {
		t.Errorf("Origin = %q, want %q", d.Origin, path)
	}
	return d
}

func TestEveryFixtureParses(t *testing.T) {
	files := fixtureFiles(t)
	if len(files) != 55 {
		t.Errorf("found %d JATS fixtures, want 55", len(files))
	}
	for _, path := range files {
		rel, _ := filepath.Rel(fixtures.Path(t, "jats"), path)
		d := readFile(t, evidenceReader(), rel)
		if d.ID == "" || d.Title == "" || d.Venue == "" {
			t.Errorf("%s: id %q title %q venue %q", rel, d.ID, d.Title, d.Venue)
		}
	}
}

// Evidence kinds, short.
const (
	lType = licence.KindJATSLicenseType
	lHref = licence.KindJATSHref
	lALI  = licence.KindJATSALI
	lP    = licence.KindJATSLicenseP
	lCopy = licence.KindJATSCopyright
)

// ev is expected evidence; a value ending in "…" is a prefix.
type ev struct {
	kind  licence.Kind
	value string
	lang  string
}

type fixtureWant struct {
	file, id, pmcid, pmid, doi, title string
	authors, orcids, affiliated, refs int
	sections                          bool
	typ, date, lang                   string
	retracted                         bool
	evidence                          []ev
}

// The expectations below were checked against the files: author, ORCID and
// reference counts by independent counting, licences against SOURCES.md.
var fixtureWants = []fixtureWant{
	{
		file: "biorxiv/biorxiv-223354.front-only.xml", id: "doi-65c577c207d3666a8a74",
		doi:     "10.1101/2020.07.27.223354",
		title:   "Human thymopoiesis produces polyspecific CD8+ α/β",
		authors: 18, orcids: 2, affiliated: 18, sections: false, refs: 0,
		typ: "preprint", date: "2022", lang: "en",
		evidence: []ev{{lCopy, "© 2022, Posted by Cold Spring Ha…", ""}, {lP, "The copyright holder for this pr…", ""}},
	},
	{
		file: "biorxiv/biorxiv-468444.xml", id: "doi-ebddabca295f9e6effce",
		doi:     "10.1101/2021.11.12.468444",
		title:   "Optogenetic induction of appetitive and aversive t",
		authors: 4, orcids: 3, affiliated: 4, sections: true, refs: 56,
		typ: "preprint", date: "2022", lang: "en",
		evidence: []ev{
			{lCopy, "© 2022, Posted by Cold Spring Ha…", ""},
			{lType, "creative-commons", ""},
			{lHref, "http://creativecommons.org/licenses/by-nc-nd/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by-nc-nd/4.0/", ""},
			{lP, "This pre-print is available unde…", ""},
		},
	},
	{
		file: "biorxiv/biorxiv-493855.xml", id: "doi-0e9d9dcb219c3afb6607",
		doi:     "10.1101/2022.05.28.493855",
		title:   "Selection and the direction of phenotypic evolutio",
		authors: 3, orcids: 0, affiliated: 3, sections: true, refs: 85,
		typ: "preprint", date: "2022", lang: "en",
		evidence: []ev{
			{lCopy, "© 2022, Posted by Cold Spring Ha…", ""},
			{lType, "creative-commons", ""},
			{lHref, "http://creativecommons.org/licenses/by-nc-nd/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by-nc-nd/4.0/", ""},
			{lP, "This pre-print is available unde…", ""},
		},
	},
	{
		file: "biorxiv/biorxiv-498369.xml", id: "doi-a67072d7d3963593e828",
		doi:     "10.1101/2022.06.30.498369",
		title:   "The circadian clock controls temporal and spatial",
		authors: 4, orcids: 3, affiliated: 4, sections: true, refs: 59,
		typ: "preprint", date: "2022", lang: "en",
		evidence: []ev{
			{lCopy, "© 2022, Posted by Cold Spring Ha…", ""},
			{lType, "creative-commons", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This pre-print is available unde…", ""},
		},
	},
	{
		file: "biorxiv/biorxiv-532331.xml", id: "doi-20d8c5f5948862a73277",
		doi:     "10.1101/2023.03.13.532331",
		title:   "Differential translation of mRNA isoforms underlie",
		authors: 5, orcids: 2, affiliated: 5, sections: true, refs: 79,
		typ: "preprint", date: "2023", lang: "en",
		evidence: []ev{
			{lCopy, "© 2023, Posted by Cold Spring Ha…", ""},
			{lType, "creative-commons", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This pre-print is available unde…", ""},
		},
	},
	{
		file: "biorxiv/medrxiv-22275761.front-only.xml", id: "doi-7e2d2165becaa6904baa",
		doi:     "10.1101/2022.05.30.22275761",
		title:   "The role of adolescent lifestyle habits in biologi",
		authors: 6, orcids: 6, affiliated: 5, sections: false, refs: 0,
		typ: "preprint", date: "2022", lang: "en",
		evidence: []ev{{lCopy, "© 2022, Posted by Cold Spring Ha…", ""}, {lP, "The copyright holder for this pr…", ""}},
	},
	{
		file: "elife/elife-00666.xml", id: "doi-93fe780fb2e74682afb3",
		doi:     "10.7554/elife.00666",
		title:   "The eLife research article",
		authors: 4, orcids: 1, affiliated: 4, sections: true, refs: 54,
		typ: "research-article", date: "2016-04-25",
		evidence: []ev{
			{lCopy, "© 2016, Harrison et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lALI, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife-02833-v2.xml", id: "doi-8300fcfff2eb24514987",
		doi:     "10.7554/elife.02833",
		title:   "H3K27 modifications define segmental regulatory do",
		authors: 7, orcids: 0, affiliated: 7, sections: true, refs: 50,
		typ: "research-article", date: "2014-07-31",
		evidence: []ev{
			{lCopy, "© 2014, Bowman et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife-30274-v1.xml", id: "doi-c0ab79372139f5255280",
		doi:     "10.7554/elife.30274",
		title:   "Replication Study: Transcriptional amplification i",
		authors: 7, orcids: 1, affiliated: 6, sections: true, refs: 35,
		typ: "research-article", date: "2018-01-09",
		evidence: []ev{
			{lCopy, "© 2018, Lewis et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lALI, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife-46472-v3.xml", id: "doi-01c85647536e58388eef",
		doi:     "10.7554/elife.46472",
		title:   "Taar1 gene variants have a causal role in methamph",
		authors: 10, orcids: 4, affiliated: 10, sections: true, refs: 72,
		typ: "research-article", date: "2019-07-09",
		evidence: []ev{
			{lHref, "http://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lALI, "http://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lP, "http://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lP, "This is an open-access article,…", ""},
		},
	},
	{
		file: "elife/elife00005.xml", id: "doi-98e351337ad797efd38c",
		doi:     "10.7554/elife.00005",
		title:   "Molecular architecture of human polycomb repressiv",
		authors: 6, orcids: 0, affiliated: 6, sections: true, refs: 46,
		typ: "research-article", date: "2012-10-30",
		evidence: []ev{
			{lCopy, "© 2012, Ciferri et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife00240.xml", id: "doi-7cf5370ac52cf3f2e6db",
		doi:     "10.7554/elife.00240",
		title:   "Indirect routes to reproductive success",
		authors: 1, orcids: 0, affiliated: 1, sections: true, refs: 7,
		typ: "article-commentary", date: "2012-10-15",
		evidence: []ev{
			{lCopy, "© 2012, Pickett", ""},
			{lHref, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife00270.xml", id: "doi-82156c35a357fe8e140c",
		doi:     "10.7554/elife.00270",
		title:   "Launching eLife, Part 1",
		authors: 4, orcids: 0, affiliated: 0, sections: true, refs: 0,
		typ: "editorial", date: "2012-10-15",
		evidence: []ev{
			{lCopy, "© 2012, Schekman et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife00351.xml", id: "doi-6a27076d3528bbb37a09",
		doi:     "10.7554/elife.00351",
		title:   "Bad medicine",
		authors: 1, orcids: 0, affiliated: 0, sections: true, refs: 7,
		typ: "book-review", date: "2012-12-13",
		evidence: []ev{
			{lCopy, "© 2012, Smith", ""},
			{lHref, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife02935.xml", id: "doi-c8157191aea246f03eae",
		doi:     "10.7554/elife.02935",
		title:   "Origins and functional consequences of somatic mit",
		authors: 53, orcids: 0, affiliated: 53, sections: true, refs: 59,
		typ: "research-article", date: "2014-10-01",
		evidence: []ev{
			{lHref, "http://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lP, "http://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lP, "This is an open-access article,…", ""},
		},
	},
	{
		file: "elife/elife06003.xml", id: "doi-98cf02d73c45aee75026",
		doi:     "10.7554/elife.06003",
		title:   "No turnover in lens lipids for the entire human li",
		authors: 6, orcids: 0, affiliated: 6, sections: true, refs: 32,
		typ: "research-article", date: "2015-03-11",
		evidence: []ev{
			{lCopy, "© 2015, Hughes et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife07586.xml", id: "doi-8449af8d0f0c17cc3005",
		doi:     "10.7554/elife.07586",
		title:   "Correction: Mucosal effects for tenofovir 1% gel",
		authors: 20, orcids: 1, affiliated: 0, sections: true, refs: 0,
		typ: "correction", date: "2015-03-24",
		evidence: []ev{
			{lCopy, "© 2015, Hladik et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife09853.xml", id: "doi-21ea03a78c094703c30a",
		doi:     "10.7554/elife.09853",
		title:   "It's all starting to come together",
		authors: 2, orcids: 1, affiliated: 2, sections: true, refs: 10,
		typ: "article-commentary", date: "2015-08-05",
		evidence: []ev{
			{lCopy, "© 2015, Becker and Gitler", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/elife_poa_e06828.xml", id: "doi-4d20e18ca5ad5934b7d2",
		doi:     "10.7554/elife.06828",
		title:   "Cis and trans RET signaling control the survival a",
		authors: 7, orcids: 0, affiliated: 7, sections: false, refs: 0,
		typ: "research-article",
		evidence: []ev{
			{lCopy, "© 2015, Fleming et al", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "elife/ijm-00202.xml", id: "doi-f2fe6968b5e39981aa53",
		doi:     "10.34196/ijm.00202",
		title:   "Gendered effects of the personal income tax: Evide",
		authors: 2, orcids: 2, affiliated: 2, sections: true, refs: 31,
		typ: "research-article", date: "2020-07-17", lang: "en",
		evidence: []ev{
			{lCopy, "© 2019, Bucheli and Olivieri", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lALI, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "f1000/f1000research-7-1655-v1.xml", id: "doi-738c3a1547eb4c999ab0",
		doi:     "10.12688/f1000research.16460.1",
		title:   "Publishing peer review materials",
		authors: 19, orcids: 6, affiliated: 19, sections: true, refs: 3,
		typ: "opinion-article", date: "2018-10-17",
		evidence: []ev{
			{lCopy, "Copyright: © 2018 Beck J et al.", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an open access article d…", ""},
			// The referee reports' own permissions (sub-articles).
			{lCopy, "Copyright: © 2018 Ross-Hellauer T", ""},
			{lP, "This is an open access peer review report distributed under the terms of the Creative Commons Attribution Licence, which permits unrestricted use, distribution, and reproduction in any medium, provided the original work is properly cited.", ""},
			{lCopy, "Copyright: © 2018 Polka JK", ""},
		},
	},
	{
		file: "f1000/f1000research-8-1394-v1.xml", id: "doi-dd32a3ca12c3de5c2a5b",
		doi:     "10.12688/f1000research.19931.1",
		title:   "Are side effects of cannabidiol (CBD) products cau",
		authors: 9, orcids: 1, affiliated: 9, sections: true, refs: 32,
		typ: "research-note", date: "2019-08-08",
		evidence: []ev{
			{lCopy, "Copyright: © 2019 Lachenmeier DW…", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an open access article d…", ""},
		},
	},
	{
		file: "plos/journal.pbio.0020188.xml", id: "doi-12f1099aeb8a8c559fa1",
		doi:     "10.1371/journal.pbio.0020188",
		title:   "Taking the Stem Cell Debate to the Public",
		authors: 3, orcids: 0, affiliated: 0, sections: true, refs: 3,
		typ: "letter", date: "2004-06-15", lang: "en",
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "plos/journal.pbio.0030408.xml", id: "doi-c6c5bc1e5f206365b220",
		doi:     "10.1371/journal.pbio.0030408",
		title:   "Stimulating the Brain Makes the Fingers More Sensi",
		authors: 0, orcids: 0, affiliated: 0, sections: true, refs: 0,
		typ: "article-commentary", date: "2005-10-18", lang: "en",
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "plos/journal.pcbi.0030158.xml", id: "doi-79439c682d096c7f10aa",
		doi:     "10.1371/journal.pcbi.0030158",
		title:   "Retraction: Measures of Clade Confidence Do Not Co",
		authors: 2, orcids: 0, affiliated: 0, sections: true, refs: 0,
		typ: "retraction", date: "2007-07-20", lang: "en", retracted: false, // a notice, not a retracted work
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "plos/journal.pgen.1000052.xml", id: "doi-1fccbc67a9503f96adc7",
		doi:     "10.1371/journal.pgen.1000052",
		title:   "A Genome-Wide Gene Expression Signature of Environ",
		authors: 4, orcids: 0, affiliated: 4, sections: true, refs: 35,
		typ: "research-article", date: "2008-04-11", lang: "en",
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "plos/journal.pmed.0020402.xml", id: "doi-2656a9ae3131836b02b8",
		doi:     "10.1371/journal.pmed.0020402",
		title:   "Tackling Inherited Blindness",
		authors: 0, orcids: 0, affiliated: 0, sections: true, refs: 0,
		typ: "article-commentary", date: "2005-11-01", lang: "en",
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "plos/journal.pmed.1001080.xml", id: "doi-86cdb31349813b4e67c6",
		doi:     "10.1371/journal.pmed.1001080",
		title:   "Neonatal Mortality Levels for 193 Countries in 200",
		authors: 9, orcids: 0, affiliated: 8, sections: true, refs: 36,
		typ: "research-article", date: "2011-08-30", lang: "en",
		evidence: []ev{{lP, "http://www.plos.org/oa/", ""}, {lP, "This is an Open Access article i…", ""}},
	},
	{
		file: "plos/journal.pone.0052690.xml", id: "doi-5ff9690d706aa3504645",
		doi:     "10.1371/journal.pone.0052690",
		title:   "The Internal Organization of Mycobacterial Partiti",
		authors: 4, orcids: 0, affiliated: 4, sections: true, refs: 51,
		typ: "research-article", date: "2012-12-20", lang: "en",
		evidence: []ev{{lP, "This is an open-access article,…", ""}},
	},
	{
		file: "plos/journal.pone.0068090.xml", id: "doi-df51dfc2fcc5f4814b4e",
		doi:     "10.1371/journal.pone.0068090",
		title:   "Abnormal Contextual Modulation of Visual Contour D",
		authors: 3, orcids: 0, affiliated: 3, sections: true, refs: 56,
		typ: "research-article", date: "2013-06-18", lang: "en",
		evidence: []ev{{lP, "This is an open-access article,…", ""}},
	},
	{
		file: "plos/journal.pone.0080518.xml", id: "doi-0cd63ceadcf987731b47",
		doi:     "10.1371/journal.pone.0080518",
		title:   "Ecoinformatics Can Reveal Yield Gaps Associated wi",
		authors: 2, orcids: 0, affiliated: 2, sections: true, refs: 43,
		typ: "research-article", date: "2013-11-15", lang: "en",
		evidence: []ev{
			{lHref, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "This is an open-access article d…", ""},
		},
	},
	{
		file: "plos/journal.pone.0097541.xml", id: "doi-c82d54b4a1a65b3af6f5",
		doi:     "10.1371/journal.pone.0097541",
		title:   "Correction: Pollen and Phytolith Evidence for Rice",
		authors: 1, orcids: 0, affiliated: 0, sections: true, refs: 1,
		typ: "correction", date: "2014-05-06", lang: "en",
		evidence: []ev{
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an open-access article d…", ""},
		},
	},
	{
		file: "plos/journal.pone.0111971.xml", id: "doi-d51899d7653f6c2eb077",
		doi:     "10.1371/journal.pone.0111971",
		title:   "Modeling Curvature-Dependent Subcellular Localizat",
		authors: 3, orcids: 0, affiliated: 3, sections: true, refs: 33,
		typ: "research-article", date: "2015-01-27", lang: "en",
		evidence: []ev{
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an open access article d…", ""},
		},
	},
	{
		file: "plos/journal.pone.0117014.xml", id: "doi-0cf6c229e5fac90f0f45",
		doi:     "10.1371/journal.pone.0117014",
		title:   "Model Selection Emphasises the Importance of Non-C",
		authors: 3, orcids: 0, affiliated: 3, sections: true, refs: 24,
		typ: "research-article", date: "2015-01-27", lang: "en",
		evidence: []ev{
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an open access article d…", ""},
		},
	},
	{
		file: "plos/journal.pone.0160653.xml", id: "doi-bc2e1f33cb2678b3d63c",
		doi:     "10.1371/journal.pone.0160653",
		title:   "Demonstration of Protein-Based Human Identificatio",
		authors: 18, orcids: 1, affiliated: 18, sections: true, refs: 94,
		typ: "research-article", date: "2016-09-07", lang: "en",
		evidence: []ev{
			{lHref, "https://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lP, "https://creativecommons.org/publicdomain/zero/1.0/", ""},
			{lP, "This is an open access article,…", ""},
		},
	},
	{
		file: "plos/journal.ppat.1005207.xml", id: "doi-22ed2e3cee1b418552c0",
		doi:     "10.1371/journal.ppat.1005207",
		title:   "Retraction: Extreme Resistance as a Host Counter-c",
		authors: 7, orcids: 0, affiliated: 0, sections: true, refs: 1,
		typ: "retraction", date: "2015-09-22", lang: "en", retracted: false, // a notice, not a retracted work
		evidence: []ev{
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an open access article d…", ""},
		},
	},
	{
		file: "pmc/1471-2180-11-174.nxml", id: "pmc-3166277",
		pmcid: "3166277", pmid: "21810267", doi: "10.1186/1471-2180-11-174",
		title:   "Factors influencing lysis time stochasticity in ba",
		authors: 2, orcids: 0, affiliated: 2, sections: true, refs: 64,
		typ: "research-article", date: "2011-08-02",
		evidence: []ev{
			{lCopy, "Copyright ©2011 Dennehy and Wang…", ""},
			{lType, "open-access", ""},
			{lHref, "http://creativecommons.org/licenses/by/2.0", ""},
			{lP, "http://creativecommons.org/licenses/by/2.0", ""},
			{lP, "This is an Open Access article d…", ""},
		},
	},
	{
		file: "pmc/1472-6831-8-11.nxml", id: "pmc-2329613",
		pmcid: "2329613", pmid: "18405359", doi: "10.1186/1472-6831-8-11",
		title:   "The Dutch version of the Oral Health Impact Profil",
		authors: 4, orcids: 0, affiliated: 4, sections: true, refs: 31,
		typ: "research-article", date: "2008-04-11",
		evidence: []ev{
			{lCopy, "Copyright © 2008 van der Meulen…", ""},
			{lType, "open-access", ""},
			{lHref, "http://creativecommons.org/licenses/by/2.0", ""},
			{lP, "http://creativecommons.org/licenses/by/2.0", ""},
			{lP, "This is an Open Access article d…", ""},
		},
	},
	{
		file: "pmc/6605965a.front-only.nxml", id: "pmc-2994229",
		pmcid: "2994229", pmid: "21045829", doi: "10.1038/sj.bjc.6605965",
		title:   "Oral contraceptives, reproductive history and risk",
		authors: 46, orcids: 0, affiliated: 46, sections: false, refs: 0,
		typ: "research-article", date: "2010-11-02",
		evidence: []ev{{lCopy, "Copyright © 2010 Cancer Research UK", ""}},
	},
	{
		file: "pmc/PMC5828200.nxml", id: "pmc-5828200",
		pmcid: "5828200", pmid: "29535835", doi: "10.18632/oncotarget.24369",
		title:   "Curcuminoid submicron particle ameliorates cogniti",
		authors: 7, orcids: 0, affiliated: 7, sections: true, refs: 52,
		typ: "research-article", date: "2018-01-31",
		evidence: []ev{
			{lCopy, "Copyright: © 2018 Tai et al.", ""},
			{lType, "open-access", ""},
			{lHref, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/3.0/", ""},
			{lP, "This article is distributed unde…", ""},
		},
	},
	{
		file: "pmc/PMC6398430.nxml", id: "pmc-6398430",
		pmcid: "6398430", pmid: "30846892", doi: "10.1093/beheco/ary157",
		title:   "Counting crows: population structure and group siz",
		authors: 6, orcids: 2, affiliated: 6, sections: true, refs: 80,
		typ: "research-article", date: "2018-12-08",
		evidence: []ev{
			{lCopy, "© The Author(s) 2018. Published…", ""},
			{lType, "cc-by", ""},
			{lHref, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "This is an Open Access article d…", ""},
		},
	},
	{
		file: "pmc/PMC7417471.nxml", id: "pmc-7417471",
		pmcid: "7417471", pmid: "32776254", doi: "10.1186/s40580-020-00237-4",
		title:   "Graphene impregnated electrospun nanofiber sensing",
		authors: 3, orcids: 1, affiliated: 3, sections: true, refs: 206,
		typ: "review-article", date: "2020-08-10",
		evidence: []ev{
			{lCopy, "© The Author(s) 2020", ""},
			{lType, "OpenAccess", ""},
			{lP, "http://creativecommons.org/licenses/by/4.0/", ""},
			{lP, "Open AccessThis article is licen…", ""},
		},
	},
	{
		file: "pmc/ehp-116-1694.nxml", id: "pmc-2599765",
		pmcid: "2599765", pmid: "19079722", doi: "10.1289/ehp.11570",
		title:   "Dietary Exposure to 2,2′,4,4′-Tetrabromodiphenyl E",
		authors: 4, orcids: 0, affiliated: 4, sections: true, refs: 58,
		typ: "research-article", date: "2008-08-01",
		evidence: []ev{
			{lType, "public-domain", ""},
			{lHref, "http://creativecommons.org/publicdomain/mark/1.0/", ""},
			{lP, "Publication of EHP lies in the p…", ""},
		},
	},
	{
		file: "pmc/mds526.nxml", id: "pmc-3574550",
		pmcid: "3574550", pmid: "23149571", doi: "10.1093/annonc/mds526",
		title:   "Socio-demographic inequalities in stage of cancer",
		authors: 7, orcids: 0, affiliated: 7, sections: true, refs: 40,
		typ: "research-article", date: "2012-11-12",
		evidence: []ev{
			{lCopy, "© The Author 2012. Published by…", ""},
			{lType, "creative-commons", ""},
			{lHref, "http://creativecommons.org/licenses/by-nc/3.0", ""},
			{lP, "http://creativecommons.org/licenses/by-nc/3.0", ""},
			{lP, "This is an Open Access article d…", ""},
		},
	},
	{
		file: "pmc/pntd.0002065.nxml", id: "pmc-3585041",
		pmcid: "3585041", pmid: "23469300", doi: "10.1371/journal.pntd.0002065",
		title:   "Serological Evidence of Rift Valley Fever Virus Ci",
		authors: 6, orcids: 0, affiliated: 6, sections: true, refs: 32,
		typ: "research-article", date: "2013-02-28",
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "pmc/pone.0000217.nxml", id: "pmc-1790863",
		pmcid: "1790863", pmid: "17299597", doi: "10.1371/journal.pone.0000217",
		title:   "Quantifying Organismal Complexity using a Populati",
		authors: 4, orcids: 0, affiliated: 4, sections: true, refs: 33,
		typ: "research-article", date: "2007-02-14",
		evidence: []ev{{lCopy, "Tenaillon et al. This is an open…", ""}},
	},
	{
		file: "pmc/pone.0046493.nxml", id: "pmc-3460867",
		pmcid: "3460867", pmid: "23029536", doi: "10.1371/journal.pone.0046493",
		title:   "MmPPOX Inhibits Mycobacterium tuberculosis Lipolyt",
		authors: 9, orcids: 0, affiliated: 9, sections: true, refs: 58,
		typ: "research-article", date: "2012-09-28",
		evidence: []ev{{lP, "This is an open-access article d…", ""}},
	},
	{
		file: "scielo/abc-20210807-MNHpJQpnjvSX6pkKCg37yTJ.xml", id: "doi-547b1538c9472e7cfd8d",
		doi:     "10.36660/abc.20210807",
		title:   "Prevalência e Fatores Associados à SRAG por COVID-",
		authors: 4, orcids: 3, affiliated: 4, sections: true, refs: 4,
		typ: "letter", date: "2022-04-29", lang: "pt",
		evidence: []ev{
			{lType, "open-access", "en"},
			{lHref, "https://creativecommons.org/licenses/by/4.0/", "en"},
			{lP, "This is an Open Access article d…", "en"},
		},
	},
	{
		file: "scielo/ceramica-QMyWZTMgngWRCDtVJfJH9Cn.xml", id: "doi-6470819c52d336bd387c",
		doi:     "10.1590/0366-69132021673843037",
		title:   "Análise de desempenho de placas cerâmicas porosas",
		authors: 5, orcids: 1, affiliated: 5, sections: true, refs: 25,
		typ: "research-article", date: "2021-11-26", lang: "pt",
		evidence: []ev{
			{lType, "open-access", "pt"},
			{lHref, "https://creativecommons.org/licenses/by-nc/4.0/", "pt"},
			{lP, "Este é um artigo publicado em ac…", "pt"},
		},
	},
	{
		file: "scielo/mediacoes-S2176-66652019000100074.xml", id: "doi-bdf5b860f7cf7174f7a1",
		doi:     "10.5433/2176-6665.2019v24n1p74",
		title:   "Voces que Gritan Fuerte: Posiciones del Bloque de",
		authors: 2, orcids: 2, affiliated: 2, sections: true, refs: 54,
		typ: "research-article", date: "2025-06-20", lang: "es",
		evidence: []ev{
			{lType, "open-access", "es"},
			{lHref, "https://creativecommons.org/licenses/by/4.0/", "es"},
			{lP, "Este es un artículo publicado en…", "es"},
		},
	},
	{
		file: "scielo/rba-69-03-0227.xml", id: "doi-3df1b86fbd138a62ccb4",
		doi:     "10.1016/j.bjane.2019.01.003",
		title:   "Implementing a chronic pain ambulatory care: preli",
		authors: 6, orcids: 1, affiliated: 6, sections: true, refs: 25,
		typ: "research-article", date: "2019-08-08", lang: "en",
		evidence: []ev{
			{lCopy, "© 2018 Sociedade Brasileira de A…", ""},
			{lType, "open-access", "en"},
			{lHref, "http://creativecommons.org/licenses/by-nc-nd/4.0", "en"},
			{lP, "This is an Open Access article d…", "en"},
		},
	},
	{
		file: "scielo/rbef-2021-0153.xml", id: "doi-cc15b2c9e9f491c9a44c",
		doi:     "10.1590/1806-9126-rbef-2021-0153",
		title:   "Desenvolvimento de uma Microbalança de Cristal de",
		authors: 3, orcids: 3, affiliated: 3, sections: true, refs: 27,
		typ: "research-article", date: "2021-10-27", lang: "pt",
		evidence: []ev{
			{lCopy, "Copyright by Sociedade Brasileir…", ""},
			{lType, "open-access", "en"},
			{lHref, "https://creativecommons.org/licenses/by/4.0/deed.en", "en"},
			{lP, "This is an open-access article d…", "en"},
		},
	},
	{
		file: "scielo/rsp-2025-S0034-89102025000100200.xml", id: "doi-695d6e83c67c01df38e8",
		doi:     "10.11606/s1518-8787.2025059006139",
		title:   "Temporal trends and spatial patterns of Hepatitis",
		authors: 7, orcids: 7, affiliated: 7, sections: true, refs: 27,
		typ: "research-article", date: "2025-03-24", lang: "en",
		evidence: []ev{
			{lType, "open-access", "en"},
			{lHref, "https://creativecommons.org/licenses/by/4.0", "en"},
			{lP, "This is an open-access article d…", "en"},
		},
	},
	{
		file: "scielo/rsp-48-2-0322.xml", id: "doi-e229fcb81855a18537d7",
		doi:     "10.1590/s0034-8910.2014048005091",
		title:   "Brote de faringo-amigdalítis por estreptococo β-he",
		authors: 7, orcids: 0, affiliated: 7, sections: true, refs: 5,
		typ: "rapid-communication", date: "2014-04", lang: "es",
		evidence: []ev{
			{lType, "open-access", ""},
			{lHref, "http://creativecommons.org/licenses/by-nc/3.0/", ""},
			{lP, "This is an Open Access article d…", ""},
		},
	},
	{
		file: "scielo/rsp-48-2-0366.xml", id: "doi-74583e5c5fd94d03fba2",
		doi:     "10.1590/s0034-8910.2013047er004650",
		title:   "Errata",
		authors: 0, orcids: 0, affiliated: 0, sections: true, refs: 0,
		typ: "correction", date: "2014-04", lang: "pt",
		evidence: []ev{
			{lType, "open-access", ""},
			{lHref, "http://creativecommons.org/licenses/by-nc/3.0/", ""},
			{lP, "This is an Open Access article d…", ""},
		},
	},
}

func TestFixtures(t *testing.T) {
	for _, w := range fixtureWants {
		t.Run(w.file, func(t *testing.T) {
			d := readFile(t, evidenceReader(), w.file)
			check := func(field, got, want string) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("ID", d.ID, w.id)
			check("PMCID", d.PMCID, w.pmcid)
			check("PMID", d.PMID, w.pmid)
			check("DOI", d.DOI, w.doi)
			check("Type", d.Type, w.typ)
			check("Date", d.Date, w.date)
			check("Language", d.Language, w.lang)
			if !strings.HasPrefix(d.Title, w.title) {
				t.Errorf("Title = %q, want prefix %q", d.Title, w.title)
			}
			if want := d.IDs(); len(d.Aliases) != len(want)-1 {
				t.Errorf("Aliases = %v, want the rest of %v", d.Aliases, want)
			}
			if w.date != "" && d.Year != atoi(w.date[:4]) {
				t.Errorf("Year = %d, want %s", d.Year, w.date[:4])
			}
			orcids, affiliated := 0, 0
			for _, a := range d.Authors {
				if a.Name == "" {
					t.Errorf("author without a name: %+v", a)
				}
				if a.ORCID != "" {
					orcids++
					if ingest.NormaliseORCID(a.ORCID) != a.ORCID {
						t.Errorf("ORCID %q not normalised", a.ORCID)
					}
				}
				if len(a.Affiliations) > 0 {
					affiliated++
				}
				for _, aff := range a.Affiliations {
					if aff == "" || strings.TrimSpace(aff) != aff {
						t.Errorf("affiliation %q not trimmed", aff)
					}
				}
			}
			if len(d.Authors) != w.authors || orcids != w.orcids || affiliated != w.affiliated {
				t.Errorf("authors/ORCIDs/affiliated = %d/%d/%d, want %d/%d/%d",
					len(d.Authors), orcids, affiliated, w.authors, w.orcids, w.affiliated)
			}
			if got := len(d.Sections) > 0; got != w.sections {
				t.Errorf("has sections = %v, want %v", got, w.sections)
			}
			if paras := countParagraphs(d.Sections); w.sections && paras == 0 {
				t.Error("sections hold no paragraphs")
			}
			if len(d.References) != w.refs {
				t.Errorf("%d references, want %d", len(d.References), w.refs)
			}
			for i, r := range d.References {
				if r.Raw == "" {
					t.Errorf("reference %d has no raw text: %+v", i, r)
				}
			}
			if d.Retracted != w.retracted {
				t.Errorf("Retracted = %v, want %v", d.Retracted, w.retracted)
			}
			wantSource, wantSources := licence.SourcePublisher, "jats:publisher"
			if w.pmcid != "" {
				wantSource, wantSources = licence.SourcePMC, "jats:pmc"
			}
			if len(d.Sources) != 1 || d.Sources[0] != wantSources {
				t.Errorf("Sources = %v, want [%s]", d.Sources, wantSources)
			}
			checkEvidence(t, d.Licence.Evidence, w.evidence, wantSource)
		})
	}
}

func checkEvidence(t *testing.T, got []licence.Evidence, want []ev, src licence.Source) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		match := g.Value == w.value
		if p, cut := strings.CutSuffix(w.value, "…"); cut {
			match = strings.HasPrefix(g.Value, p)
		}
		ok = match && g.Kind == w.kind && g.Lang == w.lang && g.Source == src
	}
	if !ok {
		var b strings.Builder
		for _, g := range got {
			b.WriteString("\n\t" + string(g.Kind) + " " + string(g.Source) + " " + g.Lang + " " + g.Value)
		}
		t.Errorf("evidence:%s\nwant %v (source %s)", b.String(), want, src)
	}
}

func countParagraphs(secs []ingest.Section) int {
	n := 0
	for _, s := range secs {
		n += len(s.Paragraphs) + countParagraphs(s.Children)
		for _, p := range s.Paragraphs {
			if p == "" {
				n-- // empty paragraphs do not count
			}
		}
	}
	return n
}
