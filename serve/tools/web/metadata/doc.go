// Package metadata is the site_metadata tool: what a page's <head> says
// (title, description, meta tags, OpenGraph, Twitter card, canonical URL,
// icons, feeds and JSON-LD), with every URL made absolute.
//
// Only the head is read, from at most the configured number of bytes. Its
// head parser (ParseHead, Head.Metadata) is also what packages extract and
// feed use, so the three tools read a head the same way. Error code beyond
// fetch's: unsupported_content_type (400, not HTML).
package metadata
