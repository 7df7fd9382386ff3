// Package pubmed reads PubMed/MEDLINE citation XML into ingest documents.
//
// [Read] streams a PubmedArticleSet (baseline and daily update files, efetch
// output) or bare PubmedArticle fragments, one record at a time, so a whole
// update file never sits in memory. Each PubmedArticle and PubmedBookArticle
// becomes a [ingest.Document]; each PMID of a DeleteCitation block becomes an
// [ingest.Deletion] for "pmid-N". Document.Updated is the record's
// DateRevised, so that a citation revised in a later update file replaces
// the earlier one. Gzip input is detected by its magic bytes
// and decompressed, although callers normally decompress first.
//
// PubMed carries no reuse licence. The only licence evidence a record can
// give is its CopyrightInformation statement (a publisher's copyright on the
// abstract), recorded as [licence.KindPubMedCopyright]; the decision for a
// PubMed-only record is therefore a rejection, and a pmid- document reaches
// the archive only when merged with a licensed record from PMC, Crossref or
// OpenAlex. That merge happens elsewhere.
//
// Retractions: a record typed "Retracted Publication" (or carrying a
// RetractionIn comment) is a retracted work; one typed "Retraction of
// Publication" (or carrying RetractionOf) is the retraction notice itself,
// Type "retraction", a document in its own right judged by its own licence
// (issue 13). Only the retracted work sets Document.Retracted, which
// removes it from the archive.
//
// Caps: one PubmedArticle, PubmedBookArticle or DeleteCitation may take at
// most 16 MiB of input; a larger one is a record_too_large Problem, and
// since XML cannot be resynchronised the rest of the file is not read
// (data/README.md, "Caps").
package pubmed
