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

    // code is the code of a, so a code read can ride in a Multicall3 call.
    function code(address a) external view returns (bytes memory) {
        return a.code;
    }
}
