// Package x402 is openshelf's one implementation of x402 v2 payments
// (scheme "exact", EIP-3009 TransferWithAuthorization, USDC on Base).
//
// It is transport independent: the HTTP middleware and the MCP adapter both
// call [Pay], which takes the route's [PaymentRequired] (built by
// [Core.Requirements]) and the client's decoded [PaymentPayload] and runs the
// paid handler between verification and settlement:
//
//	decode ─► match our own requirement ─► verify EIP-712 signature and window
//	       ─► claim (network, asset, payer, nonce) in the durable [Ledger]
//	          ├ settled for the same resource ─► run handler, replay the stored receipt
//	          ├ claimed for another resource ─► 402 invalid_exact_evm_nonce_already_used
//	          └ in flight elsewhere ─► wait for it, then re-check
//	       ─► facilitator /verify ─► handler ─► facilitator /settle ─► record receipt
//
// The claim is taken before the facilitator's /verify (the design note says
// verify, then claim): a real facilitator rejects an authorization whose
// nonce is already used on chain, so a replay of a settled payment must be
// answered from the ledger before the facilitator is asked, and concurrent
// duplicates should not all hit /verify. Everything the facilitator checks
// that needs no chain (signature, recipient, amount, window) is checked
// locally first, so a claim is only ever taken for a well-formed payment.
//
// A handler error releases the claim and settles nothing, so the same
// signed authorization can be used again. A failed settlement releases the
// claim and serves nothing (funds did not move). A facilitator that times out
// or cannot be reached yields an [apierr] 504/502 error, never a fresh 402;
// the claim is released too, because the chain itself refuses a second
// transfer of the same nonce, and the unknown outcome is logged and written
// to the ledger's settlements log for reconciliation.
//
// Facilitators: [Local] verifies in process and "settles" by recording the
// transfer in the ledger without moving funds (receipts say so in their
// extensions); [HTTPFacilitator] speaks the facilitator API (POST /verify,
// POST /settle, GET /supported). Package facilitatortest serves a Local
// facilitator over that API for interop tests.
package x402
