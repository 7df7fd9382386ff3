// Package feed is the read_feed tool: an RSS 2.0, RSS 1.0, Atom or JSON
// Feed, or the first feed an HTML page advertises, as normalised items
// with ISO 8601 UTC dates and plain-text summaries.
//
// A feed advertised by a page is checked by the guarded client before it
// is fetched, so a page cannot point the tool at a private address. Error
// codes beyond fetch's: unsupported_content_type, no_feed_found and
// invalid_feed (400).
package feed
