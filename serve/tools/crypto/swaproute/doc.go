// Package swaproute serves swap_route (GET /v1/crypto/swap-route): the
// best route between two tokens across Uniswap-V2-style pairs and V3-style
// pools of every fee tier, direct or through the wrapped native token,
// USDC and the listed tokens (up to three hops, V2 and V3 mixed), quoted at
// the head block (V2 from reserves, V3 with the DEX's QuoterV2), with the
// minimum after slippage, the price impact, gas and the USD values; with a
// sender, the unsigned router call (V2 router, SwapRouter02 exactInput or
// multicall) and the sender's balance and allowance. Nothing is sent.
//
// swap.go answers the call, route.go finds and quotes the routes and
// encodes the router calls. It is one of the crypto family's tools:
// package crypto opens it with the family's chain clients and token lookup
// (package internal/token).
package swaproute
