// Package webtest holds the local stand-ins the live tools' tests share:
// a DNS server answering from a zone, a certificate authority made at test
// time, listeners that count connections, and PDFs rendered by headless
// Chromium. Package web's own tests and the end-to-end HTTP tests of
// package serve both use it, so the fakes exist once.
//
// Everything listens on loopback and is closed by t.Cleanup.
package webtest
