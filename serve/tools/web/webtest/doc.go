// Package webtest holds the local stand-ins the live tools' tests share:
// a fake web site serving the family's testdata, a DNS server answering
// from a zone, a certificate authority made at test
// time, listeners that count connections, and PDFs rendered by headless
// Chromium. The web tool packages' own tests and the end-to-end HTTP tests of
// package serve both use it, so the fakes exist once.
//
// Everything listens on loopback and is closed by t.Cleanup.
package webtest
