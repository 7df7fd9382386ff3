// Validates the x402 Bazaar discovery extension of 402 challenges with the
// official @x402/extensions package, as a facilitator's catalogue would.
// Input (argv[2]): a JSON array of {name, paymentRequired} (decoded
// PAYMENT-REQUIRED headers). Output: one JSON line per challenge.
import { readFileSync } from "node:fs";
import {
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  extractDiscoveryInfo,
} from "@x402/extensions/bazaar";

const items = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const { name, paymentRequired: pr } of items) {
  const ext = pr.extensions?.bazaar;
  const out = { name, present: !!ext };
  if (ext) {
    out.validation = validateDiscoveryExtension(ext);
    out.spec = validateDiscoveryExtensionSpec(ext);
    // A client copies the challenge's extensions into its payment; the
    // facilitator extracts the resource from payment and requirements.
    const payload = {
      x402Version: 2,
      resource: pr.resource,
      accepted: pr.accepts[0],
      payload: {},
      extensions: pr.extensions,
    };
    try {
      out.discovered = extractDiscoveryInfo(payload, pr.accepts[0], true);
    } catch (e) {
      out.extractError = String(e);
    }
  }
  console.log(JSON.stringify(out));
}
