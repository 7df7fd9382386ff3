// Package alarm is the durable scheduled-webhook service: POST /v1/alarm
// stores a callback URL, a JSON payload and a due time; at that time the
// payload is POSTed to the URL, signed with a per-alarm secret, and retried
// on failure.
//
// # Pieces
//
//   - [Store] is the durable state, with two implementations: embedded
//     SQLite (modernc.org/sqlite, pure Go, WAL) at DATA/state/alarms.db by
//     default, and PostgreSQL (pgx/v5) so several server instances share
//     alarms. Both claim due alarms in a transaction and mark them with a
//     lease (owner, expiry); PostgreSQL uses SELECT ... FOR UPDATE SKIP
//     LOCKED so concurrent instances never claim the same row, SQLite's
//     single writer gives the same guarantee to processes sharing a file.
//   - [Service] holds the scheduler: one loop claiming due alarms in
//     batches for a bounded pool of delivery workers, sleeping until the next
//     due time (or the poll interval, for alarms other instances add), and
//     woken early when an alarm is scheduled here.
//   - Deliveries go through the guarded outbound client of package fetch
//     (SSRF guard at dial time, no redirects followed, time and size caps),
//     because callback URLs are user input.
//
// # Guarantees
//
// Delivery is at least once: a result is recorded only after the request
// finished. An instance killed during a delivery leaves its lease behind;
// when the lease expires another instance (or the same one restarted) takes
// the alarm over, records the lost attempt as abandoned and delivers again
// with the same alarm id header, so receivers deduplicate on
// X-Openshelf-Alarm-Id. A result that arrives after its lease was taken over
// is discarded (the lease check fences it), so an alarm never goes back to
// an older state. An alarm whose attempts are abandoned more than
// maxAbandoned times (a callback that crashes every instance, say) fails
// instead of looping forever.
//
// # Signing secrets
//
// Each alarm has its own signing secret, returned once in the answer to
// POST /v1/alarm and never again. The store keeps it sealed with
// AES-256-GCM (the alarm id as additional data) under a server key read
// from DATA/state/alarms.key, created on first start with mode 0600. A copy
// of the database alone does not reveal secrets; the key file does, so back
// the two up separately. Several instances sharing a PostgreSQL database
// must share the key file too: each row records the id of the key that
// sealed it and an instance only claims rows it can open, so an instance
// with another key never delivers (or fails) alarms it cannot sign.
//
// # Signature format
//
// Each attempt sends X-Openshelf-Signature: t=<unix seconds>,v1=<hex>, where
// hex is HMAC-SHA256 with the signing secret (its UTF-8 bytes, as returned)
// as key over "<t>.<body>". X-Openshelf-Alarm-Id and X-Openshelf-Attempt
// (1-based) identify the delivery. See docs/alarms.md for receivers, and
// [Verify].
//
// Each attempt is also signed in the Standard Webhooks form (webhook-id,
// webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256>, keyed with
// the base64-decoded secret after "whsec_", over "<id>.<timestamp>.<body>"),
// so receivers can verify with the standard's libraries; see [SignStandard].
package alarm
