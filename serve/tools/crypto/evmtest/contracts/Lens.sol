// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// Lens lets one Multicall3 entry do what would otherwise take two
// dependent calls. It is never deployed: the chain client places its
// runtime code at a fixed address (newer: at the beacon-roots contract's)
// with an eth_call state override.
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

    // newer runs with this code placed at the EIP-4788 beacon-roots
    // contract's address, so it reads that contract's storage: a ring in
    // which every block since Cancun writes its timestamp at slot
    // timestamp % 8191. It counts the timestamps held later than target and
    // returns the oldest one held, and whether the current block's own is
    // there (the ring is in use). When the ring reaches back past target and
    // no later block overwrote a slot, the last block at or before target
    // is the current block's number minus count: one read in place of a
    // search, which the client checks by reading that block and the next.
    // With step 0 every slot is read (8191 storage reads, about 18M gas);
    // with a step, only the slots of the times step seconds apart back from
    // the current block's (a chain whose blocks keep to slots of step
    // seconds, as Ethereum's 12 s: 7200 reads for a day, under the 2^24 gas
    // a transaction may use since Osaka), oldest then being what the slot
    // of the first such time at or before target holds.
    function newer(uint256 target, uint256 step) external view returns (uint256 count, uint256 oldest, bool current) {
        oldest = type(uint256).max;
        if (step == 0) {
            for (uint256 i = 0; i < 8191; i++) {
                uint256 t = _slot(i);
                if (t == 0) {
                    continue;
                }
                if (t > target) {
                    count++;
                }
                if (t < oldest) {
                    oldest = t;
                }
            }
        } else {
            uint256 t = block.timestamp;
            while (t > target && t >= step) {
                if (_slot(t % 8191) == t) {
                    count++;
                }
                t -= step;
            }
            if (t <= target) {
                uint256 v = _slot(t % 8191);
                if (v != 0) {
                    oldest = v;
                }
            }
        }
        current = _slot(block.timestamp % 8191) == block.timestamp;
    }

    function _slot(uint256 i) internal view returns (uint256 v) {
        assembly {
            v := sload(i)
        }
    }
}
