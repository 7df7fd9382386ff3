// Package download fetches files over HTTP(S) the way a nightly job must:
// streamed to disk, verified (MD5, S3 ETag or size) before they replace
// anything, retried with jittered exponential backoff on network errors,
// HTTP 429 and 5xx (honouring Retry-After and the x-rate-limit-* headers
// Crossref sends), bounded in concurrency per host, and skipped when the
// file on disk already has the expected content.
//
// An interrupted download is continued with a range request on the next
// attempt or run. A Client counts what it did (files, bytes, retries, cache hits) for the
// run summary. Outbound URLs come from the operator's pipeline file, not
// from users, so this client does not go through serve/fetch's guard.
package download
