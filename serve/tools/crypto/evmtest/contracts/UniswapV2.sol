// SPDX-License-Identifier: MIT
// A minimal, faithful reimplementation of the Uniswap V2 factory, pair and
// router interfaces (same function signatures, same constant-product
// formula with the 0.3% fee), for the crypto tools' tests.
pragma solidity 0.8.37;

interface IERC20 {
    function balanceOf(address) external view returns (uint256);
    function transfer(address, uint256) external returns (bool);
    function transferFrom(address, address, uint256) external returns (bool);
}

contract UniswapV2Pair {
    address public factory;
    address public token0;
    address public token1;
    uint112 private reserve0;
    uint112 private reserve1;
    uint32 private blockTimestampLast;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Mint(address indexed sender, uint256 amount0, uint256 amount1);
    event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    event Sync(uint112 reserve0, uint112 reserve1);

    constructor() {
        factory = msg.sender;
    }

    function initialize(address t0, address t1) external {
        require(msg.sender == factory, "UniswapV2: FORBIDDEN");
        token0 = t0;
        token1 = t1;
    }

    function getReserves() public view returns (uint112, uint112, uint32) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    function decimals() external pure returns (uint8) {
        return 18;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "UniswapV2: INSUFFICIENT_BALANCE");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function _update(uint256 b0, uint256 b1) private {
        reserve0 = uint112(b0);
        reserve1 = uint112(b1);
        blockTimestampLast = uint32(block.timestamp);
        emit Sync(reserve0, reserve1);
    }

    function sqrt(uint256 y) internal pure returns (uint256 z) {
        if (y > 3) {
            z = y;
            uint256 x = y / 2 + 1;
            while (x < z) {
                z = x;
                x = (y / x + x) / 2;
            }
        } else if (y != 0) {
            z = 1;
        }
    }

    function mint(address to) external returns (uint256 liquidity) {
        uint256 b0 = IERC20(token0).balanceOf(address(this));
        uint256 b1 = IERC20(token1).balanceOf(address(this));
        uint256 a0 = b0 - reserve0;
        uint256 a1 = b1 - reserve1;
        if (totalSupply == 0) {
            liquidity = sqrt(a0 * a1) - 1000;
            totalSupply = 1000;
            balanceOf[address(0)] = 1000;
            emit Transfer(address(0), address(0), 1000);
        } else {
            uint256 l0 = a0 * totalSupply / reserve0;
            uint256 l1 = a1 * totalSupply / reserve1;
            liquidity = l0 < l1 ? l0 : l1;
        }
        require(liquidity > 0, "UniswapV2: INSUFFICIENT_LIQUIDITY_MINTED");
        totalSupply += liquidity;
        balanceOf[to] += liquidity;
        emit Transfer(address(0), to, liquidity);
        _update(b0, b1);
        emit Mint(msg.sender, a0, a1);
    }

    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata) external {
        require(amount0Out > 0 || amount1Out > 0, "UniswapV2: INSUFFICIENT_OUTPUT_AMOUNT");
        (uint112 r0, uint112 r1,) = getReserves();
        require(amount0Out < r0 && amount1Out < r1, "UniswapV2: INSUFFICIENT_LIQUIDITY");
        if (amount0Out > 0) require(IERC20(token0).transfer(to, amount0Out), "UniswapV2: TRANSFER_FAILED");
        if (amount1Out > 0) require(IERC20(token1).transfer(to, amount1Out), "UniswapV2: TRANSFER_FAILED");
        uint256 b0 = IERC20(token0).balanceOf(address(this));
        uint256 b1 = IERC20(token1).balanceOf(address(this));
        uint256 in0 = b0 > r0 - amount0Out ? b0 - (r0 - amount0Out) : 0;
        uint256 in1 = b1 > r1 - amount1Out ? b1 - (r1 - amount1Out) : 0;
        require(in0 > 0 || in1 > 0, "UniswapV2: INSUFFICIENT_INPUT_AMOUNT");
        uint256 adj0 = b0 * 1000 - in0 * 3;
        uint256 adj1 = b1 * 1000 - in1 * 3;
        require(adj0 * adj1 >= uint256(r0) * uint256(r1) * 1000000, "UniswapV2: K");
        _update(b0, b1);
        emit Swap(msg.sender, in0, in1, amount0Out, amount1Out, to);
    }

    function sync() external {
        _update(IERC20(token0).balanceOf(address(this)), IERC20(token1).balanceOf(address(this)));
    }
}

contract UniswapV2Factory {
    mapping(address => mapping(address => address)) public getPair;
    address[] public allPairs;

    event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

    function allPairsLength() external view returns (uint256) {
        return allPairs.length;
    }

    function createPair(address a, address b) external returns (address pair) {
        require(a != b, "UniswapV2: IDENTICAL_ADDRESSES");
        (address t0, address t1) = a < b ? (a, b) : (b, a);
        require(t0 != address(0), "UniswapV2: ZERO_ADDRESS");
        require(getPair[t0][t1] == address(0), "UniswapV2: PAIR_EXISTS");
        UniswapV2Pair p = new UniswapV2Pair();
        p.initialize(t0, t1);
        pair = address(p);
        getPair[t0][t1] = pair;
        getPair[t1][t0] = pair;
        allPairs.push(pair);
        emit PairCreated(t0, t1, pair, allPairs.length);
    }
}

// UniswapV2Router02 subset: quotes and exact-input swaps, with the
// fee-on-transfer-supporting variant.
contract UniswapV2Router02 {
    address public immutable factory;
    address public immutable WETH;

    constructor(address factory_, address weth_) {
        factory = factory_;
        WETH = weth_;
    }

    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut) public pure returns (uint256) {
        require(amountIn > 0, "UniswapV2Library: INSUFFICIENT_INPUT_AMOUNT");
        require(reserveIn > 0 && reserveOut > 0, "UniswapV2Library: INSUFFICIENT_LIQUIDITY");
        uint256 inWithFee = amountIn * 997;
        return inWithFee * reserveOut / (reserveIn * 1000 + inWithFee);
    }

    function _reserves(address a, address b) internal view returns (address pair, uint256 ra, uint256 rb) {
        pair = UniswapV2Factory(factory).getPair(a, b);
        require(pair != address(0), "UniswapV2Library: NO_PAIR");
        (uint112 r0, uint112 r1,) = UniswapV2Pair(pair).getReserves();
        (ra, rb) = a == UniswapV2Pair(pair).token0() ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function getAmountsOut(uint256 amountIn, address[] memory path) public view returns (uint256[] memory amounts) {
        require(path.length >= 2, "UniswapV2Library: INVALID_PATH");
        amounts = new uint256[](path.length);
        amounts[0] = amountIn;
        for (uint256 i; i < path.length - 1; i++) {
            (, uint256 ra, uint256 rb) = _reserves(path[i], path[i + 1]);
            amounts[i + 1] = getAmountOut(amounts[i], ra, rb);
        }
    }

    function _swapHop(address a, address b, address to) internal {
        (address pair, uint256 ra, uint256 rb) = _reserves(a, b);
        uint256 amountIn = IERC20(a).balanceOf(pair) - ra;
        uint256 out = getAmountOut(amountIn, ra, rb);
        (uint256 o0, uint256 o1) = a == UniswapV2Pair(pair).token0() ? (uint256(0), out) : (out, uint256(0));
        UniswapV2Pair(pair).swap(o0, o1, to, new bytes(0));
    }

    function swapExactTokensForTokensSupportingFeeOnTransferTokens(
        uint256 amountIn, uint256 amountOutMin, address[] calldata path, address to, uint256 deadline
    ) public {
        require(deadline >= block.timestamp, "UniswapV2Router: EXPIRED");
        (address first,,) = _reserves(path[0], path[1]);
        require(IERC20(path[0]).transferFrom(msg.sender, first, amountIn), "UniswapV2Router: TRANSFER_FROM_FAILED");
        address last = path[path.length - 1];
        uint256 before = IERC20(last).balanceOf(to);
        for (uint256 i; i < path.length - 1; i++) {
            address next = to;
            if (i < path.length - 2) {
                (next,,) = _reserves(path[i + 1], path[i + 2]);
            }
            _swapHop(path[i], path[i + 1], next);
        }
        require(IERC20(last).balanceOf(to) - before >= amountOutMin, "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT");
    }

    function swapExactTokensForTokens(
        uint256 amountIn, uint256 amountOutMin, address[] calldata path, address to, uint256 deadline
    ) external returns (uint256[] memory amounts) {
        amounts = getAmountsOut(amountIn, path);
        swapExactTokensForTokensSupportingFeeOnTransferTokens(amountIn, amountOutMin, path, to, deadline);
    }
}
