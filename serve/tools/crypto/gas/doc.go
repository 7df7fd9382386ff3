// Package gas serves gas_tracker (GET /v1/crypto/gas-tracker): per chain,
// slow, standard and fast fees from eth_feeHistory (the 10th, 50th and
// 90th percentile tips of the last 20 blocks), a plain transfer's cost in
// the native token and in USD, congestion, the base-fee trend and the block
// time; on Solana, priority-fee percentiles and TPS from the node's recent
// samples. A chain's figures are kept for 3 s.
//
// It is one of the crypto family's tools: package crypto opens it with the
// family's chain clients and its pool pricing for the USD figures.
package gas
