package jats_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/jats"
)

// printer is a Sink that prints what it receives.
type printer struct{}

func (printer) Document(d *ingest.Document) error {
	fmt.Println(d.ID, d.Aliases, d.Title, d.Date)
	for _, s := range d.Sections {
		fmt.Printf("  %q: %q\n", s.Title, s.Paragraphs)
	}
	for _, e := range d.Licence.Evidence {
		fmt.Println("  evidence:", e.Kind, e.Source, e.Value)
	}
	return nil
}
func (printer) Delete(d ingest.Deletion) error { fmt.Println("delete", d.ID); return nil }
func (printer) Problem(p ingest.Problem)       { fmt.Println("problem:", p.Reason) }

func ExampleRead() {
	const article = `<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.2 20190208//EN" "JATS-archivearticle1.dtd">
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
 <front><article-meta>
  <article-id pub-id-type="pmc">PMC3166277</article-id>
  <article-id pub-id-type="pmid">21810267</article-id>
  <title-group><article-title>Lysis time in bacteriophage <italic>&#x003bb;</italic></article-title></title-group>
  <pub-date pub-type="epub"><day>2</day><month>8</month><year>2011</year></pub-date>
  <permissions><license xlink:href="http://creativecommons.org/licenses/by/2.0"/></permissions>
 </article-meta></front>
 <body><p>Opening words.</p><sec><title>Methods</title><p>We <bold>counted</bold>.</p></sec></body>
</article>`
	if err := jats.Read(context.Background(), strings.NewReader(article), "example.nxml", printer{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// pmc-3166277 [pmid-21810267] Lysis time in bacteriophage λ 2011-08-02
	//   "": ["Opening words."]
	//   "Methods": ["We counted."]
	//   evidence: jats-href pmc http://creativecommons.org/licenses/by/2.0
}
