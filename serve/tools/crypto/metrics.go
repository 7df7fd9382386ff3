package crypto

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// What the tools asked of each chain's node, by tool: the figures an
// operator paying the RPC provider per request, or bound by its rate
// limit, watches. Answers from the caches are not requests.
var (
	nodeRequestsDesc = prometheus.NewDesc("openshelf_crypto_node_requests_total",
		"HTTP requests the crypto tools sent to a chain's RPC node, by tool (tool \"\": outside a tool call).",
		[]string{"chain", "tool"}, nil)
	nodeCallsDesc = prometheus.NewDesc("openshelf_crypto_node_calls_total",
		"JSON-RPC calls those requests carried (a batch entry is one call; a Multicall3 aggregate3 is one).",
		[]string{"chain", "tool"}, nil)
)

// Describe makes the tools a Prometheus collector (the server registers
// every family that is one).
func (t *Tools) Describe(ch chan<- *prometheus.Desc) {
	ch <- nodeRequestsDesc
	ch <- nodeCallsDesc
}

// Collect reports the node requests and calls of each chain and tool.
func (t *Tools) Collect(ch chan<- prometheus.Metric) {
	for name, c := range t.evm {
		c.SpentBy(func(tool string, s *chain.Spent) {
			ch <- prometheus.MustNewConstMetric(nodeRequestsDesc, prometheus.CounterValue, float64(s.Requests.Load()), name, tool)
			ch <- prometheus.MustNewConstMetric(nodeCallsDesc, prometheus.CounterValue, float64(s.Calls.Load()), name, tool)
		})
	}
}
