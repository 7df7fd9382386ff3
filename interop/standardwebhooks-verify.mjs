// Verifies alarm deliveries with the reference Standard Webhooks library
// (npm standardwebhooks), as a receiver would. Input (argv[2]): a JSON
// array of {secret, headers, body}. Output: one JSON line {ok, error} each.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

for (const { secret, headers, body } of JSON.parse(readFileSync(process.argv[2], "utf8"))) {
  try {
    new Webhook(secret).verify(body, headers);
    console.log(JSON.stringify({ ok: true }));
  } catch (e) {
    console.log(JSON.stringify({ ok: false, error: String(e && e.message || e) }));
  }
}
