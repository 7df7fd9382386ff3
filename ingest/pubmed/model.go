package pubmed

import (
	"encoding/xml"

	"github.com/openshelf/openshelf/ingest/internal/clean"
)

// The types below mirror the parts of the PubMed DTD (pubmed_190101 and
// later) that the reader uses; everything else is skipped by encoding/xml.

type pubmedArticle struct {
	Citation medlineCitation `xml:"MedlineCitation"`
	Data     pubmedData      `xml:"PubmedData"`
}

type medlineCitation struct {
	Status  string         `xml:"Status,attr"`
	PMID    string         `xml:"PMID"`
	Revised *date          `xml:"DateRevised"`
	Art     articleElement `xml:"Article"`
	Mesh    []meshHeading  `xml:"MeshHeadingList>MeshHeading"`
	// Keywords keeps KeywordList groups of any owner (NOTNLM author
	// keywords, PIP, NASA...).
	Keywords      []text          `xml:"KeywordList>Keyword"`
	OtherAbstract []abstract      `xml:"OtherAbstract"`
	Comments      []commentsCorrs `xml:"CommentsCorrectionsList>CommentsCorrections"`
}

type articleElement struct {
	Journal         journal       `xml:"Journal"`
	Title           text          `xml:"ArticleTitle"`
	VernacularTitle text          `xml:"VernacularTitle"`
	ELocationIDs    []elocationID `xml:"ELocationID"`
	Abstract        abstract      `xml:"Abstract"`
	Authors         []author      `xml:"AuthorList>Author"`
	Languages       []string      `xml:"Language"`
	PubTypes        []string      `xml:"PublicationTypeList>PublicationType"`
	ArticleDates    []date        `xml:"ArticleDate"`
}

type journal struct {
	Title   text  `xml:"Title"`
	ISOAbbr text  `xml:"ISOAbbreviation"`
	PubDate *date `xml:"JournalIssue>PubDate"`
}

type date struct {
	Type        string `xml:"DateType,attr"`
	Year        string `xml:"Year"`
	Month       string `xml:"Month"`
	Day         string `xml:"Day"`
	Season      string `xml:"Season"`
	MedlineDate string `xml:"MedlineDate"`
}

type elocationID struct {
	Type  string `xml:"EIdType,attr"`
	Valid string `xml:"ValidYN,attr"`
	Value string `xml:",chardata"`
}

type abstract struct {
	Texts     []abstractText `xml:"AbstractText"`
	Copyright text           `xml:"CopyrightInformation"`
	Language  string         `xml:"Language,attr"` // OtherAbstract only
}

// abstractText is one (possibly labelled) paragraph of an abstract.
type abstractText struct {
	Label    string
	Category string
	Text     string
}

func (a *abstractText) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	for _, at := range start.Attr {
		switch at.Name.Local {
		case "Label":
			a.Label = clean.Collapse(at.Value)
		case "NlmCategory":
			a.Category = at.Value
		}
	}
	s, err := flatten(d)
	a.Text = s
	return err
}

type author struct {
	Valid          string       `xml:"ValidYN,attr"`
	LastName       text         `xml:"LastName"`
	ForeName       text         `xml:"ForeName"`
	Initials       text         `xml:"Initials"`
	Suffix         text         `xml:"Suffix"`
	CollectiveName text         `xml:"CollectiveName"`
	Identifiers    []identifier `xml:"Identifier"`
	Affiliations   []text       `xml:"AffiliationInfo>Affiliation"`
}

type identifier struct {
	Source string `xml:"Source,attr"`
	Value  string `xml:",chardata"`
}

type meshHeading struct {
	Descriptor text `xml:"DescriptorName"`
}

type commentsCorrs struct {
	RefType string `xml:"RefType,attr"`
}

type pubmedData struct {
	IDs        []articleID     `xml:"ArticleIdList>ArticleId"`
	References []referenceList `xml:"ReferenceList"`
}

type articleID struct {
	Type  string `xml:"IdType,attr"`
	Value string `xml:",chardata"`
}

// referenceList nests one level in newer DTDs (a titled sub-list).
type referenceList struct {
	References []reference     `xml:"Reference"`
	Lists      []referenceList `xml:"ReferenceList"`
}

type reference struct {
	Citation text        `xml:"Citation"`
	IDs      []articleID `xml:"ArticleIdList>ArticleId"`
}

type pubmedBookArticle struct {
	Doc  bookDocument `xml:"BookDocument"`
	Data struct {
		IDs []articleID `xml:"ArticleIdList>ArticleId"`
	} `xml:"PubmedBookData"`
}

type bookDocument struct {
	PMID     string      `xml:"PMID"`
	IDs      []articleID `xml:"ArticleIdList>ArticleId"`
	Revised  *date       `xml:"DateRevised"`
	Book     book        `xml:"Book"`
	Title    text        `xml:"ArticleTitle"`
	Vern     text        `xml:"VernacularTitle"`
	Language []string    `xml:"Language"`
	// AuthorLists has a Type attribute (authors, editors).
	AuthorLists []authorList `xml:"AuthorList"`
	PubTypes    []string     `xml:"PublicationType"`
	Abstract    abstract     `xml:"Abstract"`
	Keywords    []text       `xml:"KeywordList>Keyword"`
}

type book struct {
	Publisher   text         `xml:"Publisher>PublisherName"`
	Title       text         `xml:"BookTitle"`
	PubDate     *date        `xml:"PubDate"`
	AuthorLists []authorList `xml:"AuthorList"`
}

type authorList struct {
	Type    string   `xml:"Type,attr"`
	Authors []author `xml:"Author"`
}

type deleteCitation struct {
	PMIDs []string `xml:"PMID"`
}
