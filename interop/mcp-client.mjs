// MCP interop client: drives openshelf's /mcp with the official TypeScript
// SDK (StreamableHTTPClientTransport) and pays with the x402 reference client
// (@x402/evm's exact scheme, signing EIP-3009 TransferWithAuthorization with
// viem). It prints one JSON object per line, {"step": ..., ...}, for the Go
// test in serve/mcp to check; it exits non-zero only when the client itself
// fails.
//
//   node interop/mcp-client.mjs http://127.0.0.1:8080/mcp
//
// EVM_PRIVATE_KEY (0x-hex) chooses the payer; default a fresh random key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const url = process.argv[2];
if (!url) {
  console.error("usage: node mcp-client.mjs http://HOST:PORT/mcp");
  process.exit(2);
}
const out = (step, data) => console.log(JSON.stringify({ step, ...data }));

// Results as the caller sees them, minus bulk.
const summary = (r) => ({
  isError: !!r.isError,
  text: r.content?.[0]?.type === "text" ? r.content[0].text : null,
  structuredContent: r.structuredContent ?? null,
  meta: r._meta ?? null,
});

const client = new Client({ name: "openshelf-interop", version: "0.0.1" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
out("initialize", {
  protocolVersion: transport.protocolVersion ?? null,
  sessionId: transport.sessionId ?? null,
  serverInfo: client.getServerVersion() ?? null,
  capabilities: client.getServerCapabilities() ?? null,
});

const { tools } = await client.listTools();
out("tools", {
  tools: tools.map((t) => ({
    name: t.name,
    description: t.description,
    annotations: t.annotations ?? null,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema ?? null,
  })),
});

// A free call: the catalog gives a document to search for and to buy.
const catalog = await client.callTool({ name: "get_catalog_page", arguments: {} });
const doc = catalog.structuredContent.items[0];
const word = doc.title.split(/[^\p{L}]+/u).reduce((a, b) => (b.length > a.length ? b : a), "");
const search = await client.callTool({ name: "search_archive", arguments: { query: word, limit: 50 } });
out("search", {
  query: word,
  document: doc.id,
  ...summary(search),
  structuredContent: null,
  total: search.structuredContent?.total ?? null,
  ids: (search.structuredContent?.items ?? []).map((i) => i.id),
});

// A paid call without payment: PaymentRequired in the isError result.
const unpaid = await client.callTool({ name: "get_document", arguments: { id: doc.id } });
out("payment_required", summary(unpaid));
const paymentRequired = unpaid.structuredContent ?? JSON.parse(unpaid.content[0].text);

// Sign the payment locally (no RPC) with the reference x402 client.
const account = privateKeyToAccount(process.env.EVM_PRIVATE_KEY ?? generatePrivateKey());
const payer = new x402Client();
payer.register("eip155:*", new ExactEvmScheme(account));
const payload = await payer.createPaymentPayload(paymentRequired);

const paid = await client.callTool({
  name: "get_document",
  arguments: { id: doc.id },
  _meta: { "x402/payment": payload },
});
out("paid", { ...summary(paid), payer: account.address, payload });

// The same payment again is a replay: same receipt, no second charge.
const replay = await client.callTool({
  name: "get_document",
  arguments: { id: doc.id },
  _meta: { "x402/payment": payload },
});
out("replay", summary(replay));

// Invalid arguments are a tool error naming the field.
const invalid = await client.callTool({ name: "search_archive", arguments: { query: word, limit: 51 } });
out("invalid", summary(invalid));

// An unknown tool is a JSON-RPC error, which the SDK throws.
try {
  const r = await client.callTool({ name: "no_such_tool", arguments: {} });
  out("unknown_tool", { thrown: false, ...summary(r) });
} catch (e) {
  out("unknown_tool", { thrown: true, code: e.code ?? null, message: String(e.message) });
}

await client.close();
