// Package detect finds the input files of an ingest run and picks the reader
// for each one from its content, never from its name.
//
// [Walk] expands the command-line paths (directories recursively, in
// lexical order, so every run sees the same sequence). [Sniff] looks at the
// first bytes of a stream: gzip and zstd are recognised by their magic
// numbers and unwrapped; a tar archive inside is a PMC-style JATS package;
// XML is classified by its root element (JATS <article>, <pmc-articleset>,
// <OAI-PMH>, <PubmedArticleSet> or a bare <PubmedArticle>); JSON by its keys
// (a Crossref API envelope, a Crossref work, list or JSON Lines file, the
// same in MongoDB export form, OpenAlex works as JSON Lines or an API page).
// [Read] and [ReadFrom] then hand the stream to the matching reader.
//
// Files that are not data (a README, SOURCES.md, an image, an empty file)
// are not errors: Read returns a [*SkipError] (errors.Is(err, ErrSkipped))
// carrying the reason, so the caller can count and report it and carry on
// with the batch.
package detect
