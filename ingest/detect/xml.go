package detect

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// maxXMLTokens bounds the tokens read before the root element (prolog,
// comments, DOCTYPE); a real file has a handful.
const maxXMLTokens = 256

// classifyXML classifies XML by its root element. t starts with '<'.
func classifyXML(t []byte) Info {
	root, err := xmlRoot(t)
	if err != nil {
		return Info{Reason: "starts with '<' but is not XML: " + err.Error()}
	}
	switch root {
	case "article":
		return Info{Format: JATS, Variant: VariantArticle}
	case "pmc-articleset":
		return Info{Format: JATS, Variant: VariantArticleSet}
	case "OAI-PMH":
		return Info{Format: OAIPMH, Variant: VariantOAIResponse}
	case "PubmedArticleSet":
		return Info{Format: PubMed, Variant: VariantSet}
	case "PubmedArticle", "PubmedBookArticle":
		return Info{Format: PubMed, Variant: VariantFragment}
	case "html", "HTML":
		return Info{Reason: "HTML page"}
	case "svg":
		return Info{Reason: "image/svg+xml"}
	}
	return Info{Reason: "XML with root <" + root + ">, not a known format"}
}

var errNoRoot = errors.New("no root element in the first bytes")

// xmlRoot returns the local name of the first element. Only the prolog is
// read, so a prefix of the file is enough; the declared encoding is not
// applied (element names of the formats we read are ASCII).
func xmlRoot(t []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(t))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for i := 0; i < maxXMLTokens; i++ {
		tok, err := d.RawToken()
		if err != nil {
			if err == io.EOF {
				return "", errNoRoot
			}
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return "", errors.New(se.Msg)
			}
			return "", err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			return tok.Name.Local, nil
		case xml.EndElement:
			return "", errors.New("end tag before any element")
		case xml.CharData:
			if len(bytes.TrimSpace(tok)) > 0 {
				return "", errors.New("text before the root element")
			}
		}
	}
	return "", errNoRoot
}
