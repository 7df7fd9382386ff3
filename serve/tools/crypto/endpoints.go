package crypto

import (
	"net/http"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
)

// Endpoints returns the registry entries of the crypto tools. Input rules
// (chains, addresses, list sizes) are checked while decoding and in Check,
// so bad input and unknown contracts are refused before payment.
func (t *Tools) Endpoints() []*registry.Endpoint {
	eps := append(t.abi.Endpoints(), t.gas.Endpoints()...)
	eps = append(eps, t.pricesEndpoint(), t.auditEndpoint(), t.reportEndpoint(), t.swapEndpoint())
	eps = append(eps, t.pf.Endpoints()...)
	eps = append(eps, t.sim.Endpoints()...)
	return append(eps, t.walletReportEndpoint())
}

func (t *Tools) walletReportEndpoint() *registry.Endpoint {
	return registry.Spec[WalletReportInput]{
		Name: "wallet_report", Method: http.MethodGet, Path: "/v1/crypto/wallet-report", Group: registry.GroupTools,
		Price:   "0.03",
		Summary: "Wallet reputation: portfolio, open token approvals (from logs, with current allowances), scam-token holdings (simulated sales), interactions with flagged contracts, and a verdict (clean, caution, high-risk, flagged, incomplete) with reasons.",
		Description: "History comes from the wallet's Approval, ApprovalForAll and Transfer logs, scanned back 2,000,000 blocks by default " +
			"(configurable) in chunks that adapt to the node's range and result limits; a scan cut short by its bounds makes the verdict " +
			"incomplete, with the reason. Allowances and balances are read now in one Multicall3 call per chain. Solana addresses get the " +
			"portfolio and the verdict incomplete.",
		Output: WalletReportOutput{}, Tool: call.Tool(),
		// A real mainnet example (USDC, a well-known wallet): what discovery shows.
		Example: map[string]any{"address": "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"},
		Handle:  call.Handle("wallet_report", t.walletReport),
	}.Endpoint()
}

func (t *Tools) swapEndpoint() *registry.Endpoint {
	return registry.Spec[SwapInput]{
		Name: "swap_route", Method: http.MethodGet, Path: "/v1/crypto/swap-route", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Best swap route across Uniswap-V2-style pairs and V3-style pools (multi-hop, mixed V2/V3): output, minimum after slippage, price impact over the route, gas, USD value change; with a sender, an unsigned transaction and the allowance check.",
		Description: "Direct routes and routes through the wrapped native token, USDC and listed tokens (up to three hops, each hop " +
			"the best V2 pair or V3 pool of any fee tier) are quoted at the head block: V2 from reserves, V3 with the DEX's QuoterV2. " +
			"The transaction is a V2 router call, a SwapRouter02 exactInputSingle/exactInput, or a SwapRouter02 multicall for mixed " +
			"routes. native is handled as the wrapped token. Quotes only: no transaction is sent.",
		Output: SwapOutput{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "token_in": "WETH", "token_out": "USDC", "amount": "1"},
		Check:   call.Check("swap_route", t.checkSwap),
		Handle:  call.Handle("swap_route", t.swapRoute),
	}.Endpoint()
}

func (t *Tools) auditEndpoint() *registry.Endpoint {
	return registry.Spec[TokenInput]{
		Name: "token_audit", Method: http.MethodPost, Path: "/v1/crypto/token-audit", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Severity-ranked risk flags of a token from its bytecode and state: owner privileges, mint, pause, blacklist, fee setters, proxy upgradability, honeypot (simulated sale), liquidity lock and holder concentration.",
		Description: "Privileged functions are found by their selectors in the bytecode (the implementation's, behind a proxy); a " +
			"100 USD sale to USDC is simulated with eth_call state overrides (nothing is sent). An address without code is a 404 before payment.",
		Output: AuditOutput{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
		Check:   call.Check("token_audit", t.checkToken),
		Handle:  call.Handle("token_audit", t.tokenAudit),
	}.Endpoint()
}

func (t *Tools) reportEndpoint() *registry.Endpoint {
	return registry.Spec[TokenInput]{
		Name: "token_report", Method: http.MethodPost, Path: "/v1/crypto/token-report", Group: registry.GroupTools,
		Price:   "0.05",
		Summary: "Token safety report: score 0 to 100 with every deduction explained, a verdict (low-risk, caution, high-risk, avoid), the audit flags, and simulated sales of 100 and 1,000 USD to USDC with received amount, effective tax and revert reason.",
		Description: "Sales run through the deepest pool (and the wrapped-native/USDC pool when needed) by eth_call with state " +
			"overrides: a seller contract and a token balance are placed for the call only; nothing is signed or sent. Solana: the " +
			"sales are quotes from Orca Whirlpool pool state (quote_only), not simulations.",
		Output: ReportOutput{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
		Check:   call.Check("token_report", t.checkToken),
		Handle:  call.Handle("token_report", t.tokenReport),
	}.Endpoint()
}

func (t *Tools) pricesEndpoint() *registry.Endpoint {
	return registry.Spec[PricesInput]{
		Name: "crypto_prices", Method: http.MethodGet, Path: "/v1/crypto/prices", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Token prices in USD from on-chain pools (against USDC and the wrapped native token, EVM and Solana) with pool depth, a confidence measure and the 24-hour change; optional lending yields (Aave V3, Compound V3).",
		Description: "At most 10 tokens, as symbols, chain:address or solana:MINT. The deepest V2- or V3-style pool sets the price; " +
			"a token with neither a USDC nor a wrapped-native pool is priced through the listed tokens. The 24-hour change compares " +
			"with pool state at the block of 24 hours ago (EVM only). Solana prices come from Orca Whirlpool pools. yields_chain adds " +
			"supply and borrow APR and APY from the chain's lending markets. A token with no pool is a 404 before payment.",
		Output: PricesOutput{}, Tool: call.Tool(),
		Example: map[string]any{"tokens": "ETH,USDC"},
		Check:   call.Check("crypto_prices", t.checkPrices),
		Handle:  call.Handle("crypto_prices", t.prices),
	}.Endpoint()
}
