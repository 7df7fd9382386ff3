// x402 interop buyer: buys paid resources from a running openshelf server
// with the x402 reference HTTP client (@x402/fetch's wrapFetchWithPayment,
// an x402Client with @x402/evm's exact scheme signing EIP-3009
// TransferWithAuthorization with a viem local account). For each path it
// prints one JSON object per line for the Go test in serve to check:
//
//   {"path", "unpaid": {status, paymentRequired}, "status", "contentType",
//    "contentEncoding", "json" | "lines", "receipt", "error"}
//
// "unpaid" is what a plain fetch got (the 402 and its decoded
// PAYMENT-REQUIRED); "receipt" is the decoded PAYMENT-RESPONSE of the paid
// request. The program exits non-zero only when the client itself fails.
//
//   EVM_PRIVATE_KEY=0x... node interop/x402-buy.mjs http://127.0.0.1:8080 /api/document/pmc-1 ...
//
// EVM_PRIVATE_KEY (0x-hex) chooses the payer; default a fresh random key.
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const [base, ...paths] = process.argv.slice(2);
if (!base || paths.length === 0) {
  console.error("usage: node x402-buy.mjs BASE_URL PATH...");
  process.exit(2);
}

const account = privateKeyToAccount(process.env.EVM_PRIVATE_KEY || generatePrivateKey());
const client = new x402Client();
// Signs locally; no RPC needed.
client.register("eip155:*", new ExactEvmScheme(account));
const http = new x402HTTPClient(client);
const fetchWithPayment = wrapFetchWithPayment(fetch, client);

// body decodes a response body: JSON, or NDJSON as an array of objects.
async function body(res) {
  const text = await res.text();
  const type = res.headers.get("content-type") || "";
  if (type.startsWith("application/x-ndjson")) {
    return { lines: text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)) };
  }
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { text: text.slice(0, 500) };
  }
}

for (const path of paths) {
  const url = new URL(path, base).toString();
  const out = { path, payer: account.address };
  try {
    // Without payment: the 402 and its requirements, as the SDK reads them.
    const unpaid = await fetch(url);
    await unpaid.arrayBuffer();
    out.unpaid = { status: unpaid.status, paymentRequired: null };
    if (unpaid.status === 402) {
      out.unpaid.paymentRequired = http.getPaymentRequiredResponse((n) => unpaid.headers.get(n));
    }

    // With payment: the wrapper signs on the 402 and retries.
    const res = await fetchWithPayment(url, { method: "GET" });
    out.status = res.status;
    out.contentType = res.headers.get("content-type");
    out.contentEncoding = res.headers.get("content-encoding");
    Object.assign(out, await body(res));
    if (res.headers.get("payment-response")) {
      out.receipt = http.getPaymentSettleResponse((n) => res.headers.get(n));
    }
  } catch (err) {
    out.error = String(err?.stack || err);
  }
  console.log(JSON.stringify(out));
}
