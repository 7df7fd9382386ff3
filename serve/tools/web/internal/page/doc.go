// Package page holds what the web tools share about reading a fetched
// page: charset detection and decoding, the HTML test, the
// unsupported_content_type error, URL resolution against a page or its
// <base href>, HTML-to-text, word counting and string clipping.
//
// It is internal to serve/tools/web so that each tool package (extract,
// metadata, feed, tables, ping, domain) stays small and none imports
// another.
package page
