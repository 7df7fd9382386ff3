// Package mcp serves the registry's tools over the Model Context Protocol at
// POST /mcp, with x402 payments for the paid ones.
//
// # Transport
//
// [New] returns an http.Handler built on github.com/modelcontextprotocol/go-sdk:
// streamable HTTP, stateless (no Mcp-Session-Id is ever issued; one sent by a
// client or proxy is ignored), protocol version 2025-06-18 only (initialize
// is always answered with it; an MCP-Protocol-Version header naming another
// version gets 400), plain JSON responses (never SSE: there is nothing to
// stream), capabilities {"tools":{}} (the tool list is fixed while the
// server runs). In front of the SDK the handler
//
//   - answers every method but POST with 405 and Allow: POST;
//   - checks Host on loopback connections (DNS rebinding): the SDK's own
//     check refuses any non-loopback Host, which breaks a reverse proxy on
//     the same machine that keeps the public Host, so it is replaced by one
//     that also accepts the host of BaseURL and Config.AllowedHosts;
//   - checks Origin: a browser request whose Origin is not BaseURL's origin
//     or one of Config.AllowedOrigins gets 403 (no CORS headers are sent:
//     the clients are agents, not pages);
//   - needs an Accept that admits application/json (406 otherwise); since
//     every answer is JSON, text/event-stream may be missing;
//   - refuses JSON-RPC batches with 400, with or without a version header:
//     2025-06-18 has no batching, and no other version is spoken.
//
// # Tools
//
// Every registry endpoint with a Tool becomes a tool of the same name,
// description (which states the price) and input schema, so an endpoint
// added to the registry later shows up here without code in this package
// (the list is read when New is called: register /mcp after every tool).
// Tools are added with the SDK's untyped AddTool: arguments are decoded and
// validated by package schema (the same rules as HTTP), and no outputSchema
// is declared, because strict clients validate structuredContent against it
// even on isError results, which would break payment-required answers.
// Every tool is annotated readOnlyHint, idempotentHint, not destructive, and
// openWorldHint from the registry.
//
// A call runs: decode and validate the arguments (an isError result naming
// the field, e.g. "invalid_input: limit: must be at most 50", with the
// {"error":{"code","message","field"}} envelope as structuredContent) →
// convert to the endpoint's input → Check (a missing resource is an isError
// result such as document_not_found, and no payment is asked) → the handler,
// directly for a free tool, or through x402.Pay for a paid one.
//
// # Payments
//
// A paid tool reads the client's PaymentPayload from
// params._meta["x402/payment"] (a JSON object; the base64 header form is
// tolerated). Without one it answers isError with the PaymentRequired object
// as structuredContent and as JSON text in content[0]. With one, x402.Pay
// verifies, claims, runs the tool and settles only when the tool succeeded;
// the result then carries the receipt in _meta["x402/payment-response"]. A
// refused payment or a failed settlement is again an isError
// PaymentRequired (its error field says why; a failed settlement's receipt
// is in _meta and in structuredContent["x402/payment-response"]); a
// facilitator that cannot be reached is an isError result with the API
// error code (facilitator_error, facilitator_timeout), never a fresh
// PaymentRequired that would invite paying again.
//
// The resource URL of a tool call is the URL of the same call over HTTP:
// BaseURL plus the endpoint's path with its path parameters filled in
// (get_document {"id":"pmc-1"} is BASE/api/document/pmc-1), exactly what
// the HTTP adapter uses. A payment is therefore one purchase of one
// resource whichever transport carries it: sending it again, over MCP or
// over HTTP, is a replay that is served with the stored receipt and never
// settled twice, and it cannot be spent on another resource. The rendered
// text of a paid tool's result is kept in the payment ledger, so a replay
// over MCP (the next part of a cut result, say) is cut from that text
// without running the tool again; a replay over the other transport, whose
// stored form differs, runs the handler again with Payment.Replay set.
//
// # Results and paging
//
// A result is compact JSON text in content[0], and also structuredContent
// when it is a JSON object. Text results are capped at Config.MaxResultBytes
// (default 64 KiB). A longer result is cut, at a UTF-8 boundary, into parts:
// content[0] holds one part (a slice of the JSON text, so no
// structuredContent), content[1] a marker saying which bytes these are and
// how to continue, and _meta["openshelf/page"] the same facts for programs:
// {"offset","bytes","total_bytes","next_cursor"}. Every tool accepts an
// optional "cursor" argument, added to each input schema here rather than
// stored in the registry: calling the tool again with the same arguments
// and the next_cursor returns the next part. The cursor carries the offset
// and a hash of the whole result, so a cursor from another call, or from
// before the data changed, is refused (cursor_stale) rather than yielding a
// spliced answer. A paid tool is paged with the same _meta["x402/payment"]:
// the cursor is not part of the resource, so the later parts are replays of
// the one purchase and are not charged again. The first paid call renders
// and checks its part inside the paid run, so an unsendable result or a
// stale cursor is never charged; on a replay the part is cut from the
// stored text.
//
// When the whole result is a JSON object with rights fields (license,
// license_url, attribution, copyright_notice, share_alike_notice), every
// part of it begins with them: content[0] is then those fields as a JSON
// object (also in _meta["openshelf/rights"]), the slice content[1] and the
// marker content[2]. No part of a work travels without its licence.
//
// Protocol-level refusals (bad JSON, an unknown method, a wrong content
// type or Accept, an unsupported protocol version, a refused Origin or
// Host, a method other than POST) are JSON-RPC error objects with id null
// (or the request's id) and a JSON content type, keeping their HTTP status.
package mcp
