// Package jats reads JATS (and its NLM 2.x/3.x predecessors) into
// [ingest.Document]s: PMC Open Access articles, publisher XML (eLife, PLOS,
// SciELO, F1000) and bioRxiv/medRxiv preprints.
//
// [Read] takes a single <article> (with or without the JATS namespace), a
// <pmc-articleset>, or a PMC OAI-PMH GetRecord/ListRecords response that
// wraps articles in <record><metadata>; deleted OAI-PMH records become
// [ingest.Deletion]s for "pmc-N". [ReadTarGz] and [ReadTar] read every .xml
// and .nxml member of a PMC OA package, named "path!member".
//
// # Streaming
//
// Input is tokenised by a small lenient scanner rather than encoding/xml,
// which allocates per token and peaks near 30 MB/s on this project's
// hardware, half the pipeline's budget. The scanner works in a reused
// buffer, never fetches or interprets DTDs, resolves the predefined, numeric
// and HTML named entities, and repairs what encoding/xml's non-strict mode
// repairs (stray '<' and '&', unclosed elements closed by an ancestor's end
// tag). Memory is bounded by the largest captured piece, not the file: the
// front matter of one article or one table is held as a small tree at a
// time; a paragraph's text and a reference's fields are flattened as they
// are read (within the same size limit as a tree of them), and body
// sections stream past. Reader limits bound nesting depth, tag size and
// captured size, so hostile input fails with [ErrLimit] instead of
// exhausting memory.
//
// # What is extracted
//
//   - ids: article-id pmc/pmcid, pmid and doi (publisher-id and others are
//     ignored); an OAI-PMH header identifier supplies the pmc id when the
//     article lacks one. An article with none of these is a Problem.
//   - title: article-title, markup flattened, footnote markers dropped.
//   - authors: contrib-type="author" contributors of article-meta (a
//     collab's nested members and "author non-byline" contributors are not
//     bylined); name, string-name or collab; ORCID from contrib-id
//     (checksum-validated); affiliations via xref rid or nested aff, as one
//     line without the label. When no author has an affiliation, the
//     article's unreferenced affiliations apply to every author.
//   - venue (journal-title), publisher, type (article-type; bioRxiv and
//     medRxiv "article" becomes "preprint"), language (article xml:lang).
//   - date: the most precise pub-date, electronic before print before
//     issue (collection), earliest among equals; pmc-release only as a last
//     resort. Written as precisely as given (2019, 2019-05, 2019-05-07).
//   - abstract: the first abstract without abstract-type, else the first
//     that is not graphical or toc; paragraphs joined by a blank line,
//     structured-abstract section titles prefixed ("Methods: ...").
//   - keywords: every kwd-group; subjects: article-categories without
//     display-channel/author-type groups and without genre labels.
//   - sections: body sec/title/p, nested; body paragraphs outside any sec
//     form a leading untitled section. Back-matter ack, app and sec follow
//     the body. Figures, tables, their captions, display formulas and
//     supplementary material are left out of the text, as are footnotes.
//   - tables: every table-wrap of the body, back matter and floats-group
//     (inside a paragraph or a table-wrap-group too) with a <table>,
//     directly or in <alternatives>, becomes an [ingest.Table]: label,
//     caption, header rows (<thead>, else leading rows of <th> cells),
//     body rows as cell text with colspan and rowspan expanded (a rowspan
//     ends with its row group), and the notes of table-wrap-foot and
//     tfoot. Footnote markers (xref) are dropped from cells. Spans and
//     sizes are bounded (128 columns, 4096 rows, 65536 cells, spans of
//     1024). A table given only as an image is not read.
//   - references: every ref of every ref-list. Structured fields (authors
//     as "Surname GN", title, source, year, volume, issue, pages, DOI,
//     PMID) come from the element-citation (or NLM citation/nlm-citation),
//     else from the mixed-citation; Raw is the flattened mixed-citation,
//     which keeps the publisher's punctuation, else the flattened
//     structured citation. A DOI written only in the text is picked up.
//   - sub-articles and responses (eLife decision letters, F1000 referee
//     reports, SciELO translations and replies) are not text: they are
//     separate works with their own authors, and nothing of them (body,
//     back matter, references, tables) is served. Their permissions are
//     recorded as their own licence evidence (below).
//
// # Retractions
//
// Retracted is set only for retracted works, which PMC links forward to
// their notice (related-article "retraction-forward"); they are removed
// from the archive. Retraction notices (article-type "retraction" or
// "partial-retraction", or a related-article of type "retracted-article"
// pointing from the notice to the work it retracts, which makes the Type
// "retraction") are documents in their own right, judged by their own
// licence like corrections.
//
// # Licence
//
// Licence evidence comes from the permissions of every article-meta (a
// second one, or a second <front>, cannot hide a restriction) and every
// front-stub of the article, plus a bare article-meta copyright-statement,
// where NLM 2.x files state the licence. The permissions of every
// sub-article or response (their front or front-stub, nested ones
// included, up to 8 deep; deeper nesting makes the article a Problem) are
// read too, with paths starting "sub-article[n]" or "response[n]": the
// licence package takes them for the sub-article's own licence, never the
// article's, and they appear in the receipt. Figure and table permissions
// are not read: figures are not served. Each Evidence carries its Path, e.g.
// "front/article-meta[1]/permissions[1]/license[1]/@xlink:href". Per
// <license>, in document order: license-type, xlink:href, each
// ali:license_ref with its start_date, then the URLs linked or spelled out
// in each license-p (or NLM 2.x <p>) followed by its text; Lang is the
// license's xml:lang. Then copyright-statement text. Source is
// [licence.SourcePMC] when the article has a pmc id, else
// [licence.SourcePublisher]; the decision is [licence.Decide] of that
// evidence at [Reader.Now].
package jats
