// Package web holds the live tools that read the public web on a caller's
// behalf: extract_webpage (main content as Markdown), site_metadata (what a
// page's <head> says), read_feed (RSS, Atom and JSON Feed), and
// extract_tables, ping_status and domain_intel.
//
// Every request to a user-given URL goes through the guarded client of
// package fetch (SSRF guard at dial time, robots.txt, size and time caps);
// no tool opens a connection of its own. Each tool is an input struct whose
// tags are its schema, an output struct, and a method; Endpoints (on Tools
// and on Probe) declares them to the registry. Input Validate methods run
// fetch.CheckURL, so a literal private address is refused before payment.
//
// Error codes beyond fetch's: unsupported_content_type (400, the URL serves
// something the tool does not read), no_readable_content and
// page_too_complex (extract_webpage), no_feed_found and invalid_feed
// (read_feed). A handler error is never charged.
package web
