// Package web is the family of live tools that read the public web on a
// caller's behalf. Each tool is its own package:
//
//   - extract: extract_webpage (main content as Markdown)
//   - metadata: site_metadata (what a page's <head> says)
//   - feed: read_feed (RSS, Atom and JSON Feed)
//   - tables: extract_tables (HTML and PDF tables)
//   - ping: ping_status (is a URL up)
//   - domain: domain_intel (RDAP, DNS and tech stack)
//
// with what they share about reading a page (charset, HTML-to-text, URL
// resolution) in internal/page and the test stand-ins in webtest. This
// package constructs them and declares them to the server: its Family opens
// Tools (the first three, configured by ToolsConfig) and Probe (the last
// three, configured by ProbeConfig), the groups serve.NewApp registers.
//
// Every request to a user-given URL goes through the guarded client of
// package fetch (SSRF guard at dial time, robots.txt, size and time caps);
// no tool opens a connection of its own. Each tool is an input struct whose
// tags are its schema, an output struct, and a method; its Endpoint
// declares it to the registry. Each endpoint's Check runs the family
// client's CheckURL, so a URL the client may not fetch (a literal private
// address, another scheme) is refused before payment, under the same
// policy (--unsafe-allow-targets included) as the fetch itself. A handler
// error is never charged.
package web
