package crypto

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/registry"
)

// value wraps a tool function as a registry handler.
func value[In, Out any](f func(context.Context, *In) (*Out, error)) func(context.Context, *In) (*registry.Result, error) {
	return func(ctx context.Context, in *In) (*registry.Result, error) {
		out, err := f(ctx, in)
		if err != nil {
			return nil, err
		}
		return &registry.Result{Value: out}, nil
	}
}

// tool marks every crypto tool as reaching outside the archive.
func tool() *registry.Tool { return &registry.Tool{OpenWorld: true} }

// Endpoints returns the registry entries of the crypto tools. Input rules
// (chains, addresses, list sizes) are checked while decoding and in Check,
// so bad input and unknown contracts are refused before payment.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{
		t.contractABIEndpoint(),
		t.gasEndpoint(),
		t.pricesEndpoint(),
	}
}

func (t *Tools) gasEndpoint() *registry.Endpoint {
	return registry.Spec[GasInput]{
		Name: "gas_tracker", Method: http.MethodGet, Path: "/v1/crypto/gas-tracker", Group: registry.GroupTools,
		Price:   "0.0001",
		Summary: "Gas fees per chain: slow, standard and fast fees, transfer costs in native and USD, congestion, base-fee trend, block time; Solana priority-fee percentiles and TPS.",
		Description: "EVM figures come from eth_feeHistory over the last 20 blocks (10th, 50th and 90th percentile tips) and " +
			"the head block; USD from the wrapped-native/USDC pool. A chain whose node fails is reported with an error; the " +
			"call fails only when every chain does.",
		Output: GasOutput{}, Tool: tool(),
		Handle: value(t.gas),
	}.Endpoint()
}

func (t *Tools) pricesEndpoint() *registry.Endpoint {
	return registry.Spec[PricesInput]{
		Name: "crypto_prices", Method: http.MethodGet, Path: "/v1/crypto/prices", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Token prices in USD from on-chain pools (against USDC and the wrapped native token) with pool depth, a confidence measure and the 24-hour change.",
		Description: "At most 10 tokens, as symbols or chain:address. The deepest Uniswap-V2-style pool sets the price; " +
			"the 24-hour change compares with pool state at the block of 24 hours ago. A token with no pool is a 404 before payment.",
		Output: PricesOutput{}, Tool: tool(),
		Check:  t.checkPrices,
		Handle: value(t.prices),
	}.Endpoint()
}

func (t *Tools) contractABIEndpoint() *registry.Endpoint {
	return registry.Spec[ABIInput]{
		Name: "contract_abi", Method: http.MethodGet, Path: "/v1/crypto/contract-abi", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Verified ABI of a contract with compiler, deployment, function, event and error signatures (selectors), optional source, and the implementation's ABI behind a proxy.",
		Description: "From Sourcify, with an Etherscan-style API as fallback. Proxies (EIP-1967 and its beacon variant, EIP-1822, " +
			"EIP-1167 minimal proxies, ZeppelinOS) are resolved from chain state. An unverified contract is a 404 before payment.",
		Output: ABIOutput{}, Tool: tool(),
		Check:  t.checkABI,
		Handle: value(t.contractABI),
	}.Endpoint()
}
