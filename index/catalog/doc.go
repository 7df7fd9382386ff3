// Package catalog is the snapshot's catalog file, catalog/catalog.bin: the
// listing columns of every published document (id, title, authors, year,
// venue, topics, licence and its URL, two flags) and every alias of a
// document id, laid out so that the read server maps the file and reads
// entries in place. Its memory is the pages it touches, which the kernel
// may drop, not a copy of the whole catalog: at ten million documents
// the copy took gigabytes.
//
// The Parquet tables (documents.parquet, aliases.parquet) stay the
// documented interface for analysts; this file is a serving artefact the
// index builder derives from the same rows.
//
// # Layout
//
// All integers are little-endian; the two offset arrays start at multiples
// of 8 bytes.
//
//	records    N records, in doc order (doc d is the d-th row of documents.parquet, in id order)
//	pad        to a multiple of 8
//	rec_off    (N+1) × uint64: record d is the bytes [rec_off[d], rec_off[d+1])
//	dict       D × (uvarint length, bytes): venues, topics, licences and licence URLs
//	aliases    A × (uvarint length, alias, uvarint length, canonical id), sorted by alias bytes
//	pad        to a multiple of 8
//	alias_off  (A+1) × uint64: alias i is the bytes [alias_off[i], alias_off[i+1])
//	footer     magic "osbcatl1" | N | D | A | rec_off position | dict position |
//	           aliases position | alias_off position (uint64 each) | magic
//
// A record is: id, title (uvarint length and bytes each), the author count
// and each author's name, the year (zig-zag varint, 0 undated), the
// venue's dictionary index, the topic count and each topic's index, the
// licence's and the licence URL's indexes (uvarints), and one flags byte
// (bit 0 full text, bit 1 references).
//
// Aliases hold every id a document answers to except its canonical id:
// a canonical id is found by binary search over the records, which are in
// id order.
//
// Open checks the footer and that every section lies in the file; a
// record or alias is checked when it is decoded, so a damaged file gives
// ErrCorrupt, never a crash.
package catalog
