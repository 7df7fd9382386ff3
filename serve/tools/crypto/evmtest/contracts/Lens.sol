// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// Lens lets one Multicall3 entry do what would otherwise take two
// dependent calls. It is never deployed: the chain client places its
// runtime code at a fixed address with an eth_call state override.
contract Lens {
    // resolve calls lookup on factory (getPair, getPool); when that answers
    // a nonzero address with code, each of reads is made on that address,
    // and its success and answer returned as Multicall3 would give them.
    function resolve(address factory, bytes calldata lookup, bytes[] calldata reads)
        external
        view
        returns (address at, bool[] memory ok, bytes[] memory out)
    {
        ok = new bool[](reads.length);
        out = new bytes[](reads.length);
        (bool found, bytes memory ret) = factory.staticcall(lookup);
        if (!found || ret.length < 32) {
            return (address(0), ok, out);
        }
        at = abi.decode(ret, (address));
        if (at == address(0) || at.code.length == 0) {
            return (at, ok, out);
        }
        for (uint256 i = 0; i < reads.length; i++) {
            (ok[i], out[i]) = at.staticcall(reads[i]);
        }
    }

    // Hop is one pool a route may take at a depth: a V2-style pair, given
    // its reserves (read at the same block) and fee, or a V3-style pool,
    // quoted by its DEX's QuoterV2.
    struct Hop {
        bool v3;
        address quoter;
        address tokenIn;
        address tokenOut;
        uint24 fee;
        uint256 rIn;
        uint256 rOut;
        uint256 feeBps;
    }

    struct QuoteParams {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint24 fee;
        uint160 sqrtPriceLimitX96;
    }

    // route follows a path from amountIn depth by depth, taking at each
    // depth the hop that pays most (the first of equals), as the client
    // does hop by hop, and returns each depth's output and the hop taken.
    // It is not view: QuoterV2 quotes by a swap it reverts.
    function route(uint256 amountIn, Hop[][] calldata depths)
        external
        returns (uint256[] memory outs, uint256[] memory picks)
    {
        outs = new uint256[](depths.length);
        picks = new uint256[](depths.length);
        uint256 x = amountIn;
        for (uint256 d = 0; d < depths.length; d++) {
            uint256 best = 0;
            uint256 pick = 0;
            for (uint256 j = 0; j < depths[d].length; j++) {
                uint256 o = x == 0 ? 0 : _out(depths[d][j], x);
                if (j == 0 || o > best) {
                    (best, pick) = (o, j);
                }
            }
            (outs[d], picks[d]) = (best, pick);
            x = best;
        }
    }

    function _out(Hop calldata h, uint256 x) internal returns (uint256) {
        if (!h.v3) {
            if (h.rIn == 0 || h.rOut == 0) {
                return 0;
            }
            uint256 inFee = x * (10000 - h.feeBps);
            return inFee * h.rOut / (h.rIn * 10000 + inFee);
        }
        (bool ok, bytes memory ret) = h.quoter.call(
            abi.encodeWithSignature(
                "quoteExactInputSingle((address,address,uint256,uint24,uint160))",
                QuoteParams(h.tokenIn, h.tokenOut, x, h.fee, 0)
            )
        );
        if (!ok || ret.length < 32) {
            return 0;
        }
        return abi.decode(ret, (uint256));
    }

    // code is the code of a, so a code read can ride in a Multicall3 call.
    function code(address a) external view returns (bytes memory) {
        return a.code;
    }
}
