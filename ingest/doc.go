// Package ingest reads public scholarly sources and normalises them into one
// document model.
//
// Readers live in sub-packages (jats, pubmed, openalex, crossref); each
// streams its input and reports every record through a [Sink], so a batch of
// any size runs in bounded memory. A malformed file or record is reported as
// a [Problem] and never stops the batch. The detect sub-package picks the reader for a file
// from its content, not its name.
package ingest
