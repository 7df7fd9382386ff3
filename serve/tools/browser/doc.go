// Package browser holds the live tools that need a real browser:
// screenshot (a page as PNG, JPEG or WebP), site_speed (Core Web Vitals
// and page weight under an emulated phone or desktop), site_audit (grade,
// five scores and findings with fixes; accessibility by axe-core, read
// from disk and run in an isolated world of the page) and render_document
// (Markdown to PDF, DOCX or HTML behind a 24-hour download link).
//
// # Browser
//
// One Debian chromium process, driven over its DevTools pipe with
// chromedp, is started on the first call that needs it. Each call gets a
// fresh browser context (Target.createBrowserContext: its own cookies,
// cache and storage, disposed of afterwards) and a tab in it; at most
// Config.Concurrency calls hold one at a time, others wait up to
// QueueTimeout (then 503 browser_busy). Each call has a deadline
// (CallTimeout, 504 upstream_timeout) and a wait budget for its load
// condition (WaitTimeout; a page still busy then is used as it is and the
// answer says wait_timed_out). A browser that crashed is noticed through
// its root context and replaced on the next call (after a call that hit
// its deadline the browser must answer a version query within 5 s, or it
// is killed as hung and replaced too); calls that were running
// in it fail (502 browser_error) and, like every failed call, are not
// charged.
//
// # Guarded traffic
//
// Every request the page makes goes through a forward proxy in this
// process (proxy.go): each call's browser context is created with its own
// proxy (HTTP and CONNECT, so https, ws and wss too), with the bypass list
// "<-loopback>" so that even loopback goes through it. The proxy applies
// the guarded client's rules (fetch.Client.CheckURL for names and ports,
// fetch.Client.DialContext for the address after DNS resolution) and the
// call's byte cap. A refused sub-request fails in the page and is listed
// in the answer's blocked field; a refused document or redirect of it
// makes the call fail with 403 forbidden_target. Chromium's process-wide
// proxy refuses everything, which catches its own background requests.
// Before navigating, the URL is checked with the guarded client (robots.txt
// of each hop, redirects into refused targets), so the browser never visits
// a page robots.txt disallows (403 robots_disallowed).
//
// # Rendering
//
// Package render turns Markdown into HTML and DOCX without the browser;
// PDFs are the HTML printed by Chromium in a tab whose proxy refuses every
// request. Files are kept under Config.RenderDir (DATA/state/renders) with
// an unguessable token and served by the free route GET
// /v1/render-doc/{token} until they expire; a sweeper deletes them.
//
// Error codes beyond fetch's: browser_unavailable and browser_busy (503),
// browser_error (502), render_not_found (404, the download route).
package browser
