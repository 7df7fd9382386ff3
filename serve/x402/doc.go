// Package x402 is openshelf's one implementation of x402 v2 payments
// (scheme "exact", EIP-3009 TransferWithAuthorization, USDC on Base). The
// HTTP middleware (serve) and the MCP adapter (serve/mcp) both call [Pay]
// with the route's [PaymentRequired] (built by [Core.RequirementsFor] from
// a price parsed once at registration) and the client's decoded
// [PaymentPayload]:
//
//	decode ─► match our own requirement ("base" = eip155:8453) ─► verify signature and window
//	       ─► claim (network, asset, payer, nonce) in the durable [Ledger]
//	          ├ served/settled for the same resource ─► the stored answer and receipt (no handler run)
//	          ├ claimed/settling for another resource ─► 402 invalid_exact_evm_nonce_already_used
//	          ├ settling, holder gone ─► recover (settle again), then look again
//	          └ held elsewhere ─► wait at most Config.Wait, then 409 payment_in_progress + Retry-After
//	       ─► facilitator /verify ─► handler(ctx, Payment) ─► ledger: settling + stored answer
//	       ─► facilitator /settle ─► ledger: served + receipt + settlements log
//
// States. A ledger record moves claimed → settling → served, or to
// released (handler or verify failed, or the claim expired before
// settlement was sent: no funds moved) or failed (the facilitator refused
// settlement). A claim's lease is min(now + ClaimLease, validBefore): it
// never outlives the authorization. Every transition is a compare-and-set
// on (state, owner), so two processes sharing a ledger (SQLite file or
// PostgreSQL) never both settle one authorization.
//
// Recovery. A record whose holder is gone (its lease expired, or a
// previous run of the same Config.Instance held it) is recovered
// deterministically by [Core.Recover] (at start-up and on a schedule,
// [Core.Maintain]) or by the client's re-send, whichever comes first:
// claimed → released or taken over (settlement never sent); settling →
// settle again: success or "nonce already used" (the first settlement went
// through) → settled, and the re-send is served; any other refusal →
// failed. A facilitator that cannot be reached leaves it settling for the
// next attempt, and the outcome is logged as unknown in the settlements
// log.
//
// After a restart, start-up recovery and the customers' re-sends run at
// the same time, and a re-send never waits for recovery to reach its
// record: Recover skips a record that a request of this process is
// looking at, so that request recovers it itself (were it to wait for the
// dead run's lease instead, the record would stay settling until the
// next sweep). While Recover settles a record again, it holds the record
// in this process: a re-send waits for it, and is served as soon as it
// ends or gets 409 with Retry-After of one second.
//
// Stored answers. A [Codec] keeps the paid answer with the record
// (bounded by Config.MaxAnswerBytes), so a re-send of the same payment is
// answered without running the handler again: a live tool does not fetch
// twice. Answers that are not stored are produced again by the handler
// with Payment.Replay set, never charged again. [Ledger.Prune] drops stored
// answers of expired authorizations and finished records after a
// retention period.
//
// The claim is taken before the facilitator's /verify: a real facilitator
// rejects an authorization whose nonce is already used on chain, so a
// re-send of a settled payment must be answered from the ledger before the
// facilitator is asked, and concurrent duplicates should not all hit
// /verify. Everything the facilitator checks that needs no chain
// (signature, recipient, amount, window) is checked locally first, so a
// claim is only ever taken for a well-formed payment.
//
// Group commit. One writer goroutine owns the ledger's SQLite connection
// and runs the operations of concurrent requests queued meanwhile in one
// transaction (PostgreSQL: one transaction per operation); a request
// goes on only once its transaction committed, so settling is durable
// before settlement is sent and served before the answer is sent, as with
// one transaction per write (batch.go). Reads and the Local facilitator's
// transfer record return before the commit: that record is committed with
// or before the settlement record that follows it.
//
// Facilitators: [Local] verifies in process and "settles" by recording
// the transfer in the server's own ledger without moving funds (receipts
// say so in their extensions). Handed the Core's verification of the very
// same payload through the context, it checks only the validity window
// again, on its own clock, so a paid request recovers its signature once.
// [HTTPFacilitator] speaks the facilitator API (POST /verify, POST
// /settle, GET /supported) and the remote facilitator verifies everything
// itself. Package facilitatortest serves a Local facilitator over that
// API for interop tests.
package x402
