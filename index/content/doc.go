// Package content is the snapshot's content store, content/docs.bin: the
// paid content of every published document (metadata and rights, full-text
// sections, references), one small record per document in doc order, so
// the read server answers a paid request with two positioned reads and a
// tiny decoder instead of a Parquet query.
//
// The Parquet tables (documents, fulltext, references) stay the documented
// interface for analysts; this file is a serving artefact derived from the
// same rows by the index builder (data/README.md describes it).
//
// # Layout
//
// Doc d (the d-th document of documents.parquet, in id order) has three
// parts: 0 the document, 1 its sections, 2 its references. The file is
//
//	dictionaries (parts 0, 1, 2) | blobs | offsets: 3N+1 uint64 LE |
//	footer: magic "osbcont1", N, offsets position, 3 dictionary lengths (uint64 LE each)
//
// where part k of doc d is the blob from offsets[3d+k] to offsets[3d+k+1].
// A blob is empty (no sections, no references) or a codec byte (0 raw,
// 1 zstd) and the encoded part. Parts are encoded with uvarint lengths
// and counts (see encode.go); each is compressed on its own, so a document
// request never decompresses a full text, with the raw zstd dictionary of
// its kind (dictionary id k+1): the first documents' parts, up to 100 KiB,
// which hold the phrasing that repeats between records (licence texts,
// attribution, vocabulary) and make records a third smaller.
package content
