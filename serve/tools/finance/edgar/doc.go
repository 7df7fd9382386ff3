// Package edgar is a small client for the SEC's EDGAR JSON APIs: the ticker
// map (company_tickers.json), company submissions
// (submissions/CIK##########.json) and XBRL company facts
// (api/xbrl/companyfacts/CIK##########.json).
//
// EDGAR asks automated clients for a User-Agent naming the company and a
// contact address, and for at most 10 requests per second; above that it
// answers 403 or 429 and may block the address. So one [Client] is shared by
// the whole process: every request waits on its token bucket (default 8 per
// second with a burst of 1, so no one-second window ever sees more than 9),
// has a per-attempt timeout, and is retried with exponential backoff (or the
// upstream's Retry-After) on 429, 5xx and transport failures.
//
// Answers are cached in memory, decoded: the ticker map for a day, company
// files for a short freshness window after which they are revalidated with
// If-None-Match / If-Modified-Since, so an unchanged file costs a 304 and no
// parse. Concurrent requests for the same file share one upstream request.
//
// Errors are *Error values; errors.Is matches this package's sentinels and
// the apierr kinds they specialise (404, 502, 503, 504), and errors.As to
// *apierr.Error yields the status, stable code and a client-safe message.
package edgar
