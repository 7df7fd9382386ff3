package crypto

import (
	"github.com/openshelf/openshelf/serve/registry"
)

// Endpoints returns the registry entries of the crypto tools, each
// package's in turn; their order is the order of the documents generated
// from them (OpenAPI, the MCP tool list). Input rules (chains, addresses,
// list sizes) are checked while decoding and in Check, so bad input and
// unknown contracts are refused before payment.
func (t *Tools) Endpoints() []*registry.Endpoint {
	var eps []*registry.Endpoint
	for _, tool := range []interface{ Endpoints() []*registry.Endpoint }{
		t.abi, t.gas, t.prices, t.audit, t.report, t.swap, t.pf, t.sim, t.wallet,
	} {
		eps = append(eps, tool.Endpoints()...)
	}
	return eps
}
