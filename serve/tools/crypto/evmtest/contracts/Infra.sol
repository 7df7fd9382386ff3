// SPDX-License-Identifier: MIT
// Infrastructure contracts of the test chain: an EIP-1967 proxy, Multicall3
// (the real contract's aggregate3/getEthBalance interface) and SellTester,
// the contract token_report places with a state override to simulate sells.
pragma solidity 0.8.37;

// ERC1967Proxy keeps its implementation at the EIP-1967 slot
// bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1) and its
// admin at the admin slot, and delegates every call.
contract ERC1967Proxy {
    bytes32 internal constant IMPL = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 internal constant ADMIN = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;

    event Upgraded(address indexed implementation);

    constructor(address impl, address admin) {
        assembly {
            sstore(IMPL, impl)
            sstore(ADMIN, admin)
        }
        emit Upgraded(impl);
    }

    function upgradeTo(address impl) external {
        address admin;
        assembly {
            admin := sload(ADMIN)
        }
        require(msg.sender == admin, "not admin");
        assembly {
            sstore(IMPL, impl)
        }
        emit Upgraded(impl);
    }

    fallback() external payable {
        assembly {
            let impl := sload(IMPL)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }
}

contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(ok || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(ok, ret);
        }
    }

    function getEthBalance(address addr) external view returns (uint256) {
        return addr.balance;
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }

    function getBasefee() external view returns (uint256) {
        return block.basefee;
    }

    function getCurrentBlockTimestamp() external view returns (uint256) {
        return block.timestamp;
    }
}

interface IERC20 {
    function balanceOf(address) external view returns (uint256);
    function transfer(address, uint256) external returns (bool);
}

interface IPair {
    function token0() external view returns (address);
    function getReserves() external view returns (uint112, uint112, uint32);
    function swap(uint256, uint256, address, bytes calldata) external;
}

// SellTester sells amountIn of tokens[0] along pairs (tokens[i] to
// tokens[i+1] through pairs[i]) and returns what the path would give with no
// transfer tax and what it actually gave. It is never deployed: its runtime
// code is placed at an address with an eth_call state override, together
// with a token balance, so nothing is sent.
contract SellTester {
    function _out(uint256 amountIn, uint256 rIn, uint256 rOut) internal pure returns (uint256) {
        uint256 f = amountIn * 997;
        return f * rOut / (rIn * 1000 + f);
    }

    function _reserves(address pair, address tokenIn) internal view returns (uint256 rIn, uint256 rOut, bool zeroIn) {
        (uint112 r0, uint112 r1,) = IPair(pair).getReserves();
        zeroIn = IPair(pair).token0() == tokenIn;
        (rIn, rOut) = zeroIn ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function sell(address[] calldata tokens, address[] calldata pairs, uint256 amountIn)
        external
        returns (uint256 expected, uint256 received)
    {
        expected = amountIn;
        uint256 amount = amountIn;
        for (uint256 i; i < pairs.length; i++) {
            (uint256 rIn, uint256 rOut, bool zeroIn) = _reserves(pairs[i], tokens[i]);
            expected = _out(expected, rIn, rOut);
            require(IERC20(tokens[i]).transfer(pairs[i], amount), "SellTester: transfer failed");
            uint256 arrived = IERC20(tokens[i]).balanceOf(pairs[i]) - rIn;
            uint256 out = _out(arrived, rIn, rOut);
            uint256 before = IERC20(tokens[i + 1]).balanceOf(address(this));
            IPair(pairs[i]).swap(zeroIn ? 0 : out, zeroIn ? out : 0, address(this), new bytes(0));
            amount = IERC20(tokens[i + 1]).balanceOf(address(this)) - before;
        }
        received = amount;
    }
}
