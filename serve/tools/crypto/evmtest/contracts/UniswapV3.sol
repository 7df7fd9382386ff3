// SPDX-License-Identifier: MIT
// A Uniswap-V3-style pool reduced to one full-range position, with the real
// interfaces the tools read and call: the factory's getPool(tokenA, tokenB,
// fee), the pool's slot0(), liquidity(), token0(), token1(), fee() and
// swap() with the uniswapV3SwapCallback payment, QuoterV2's
// quoteExactInputSingle and quoteExactInput (packed path), and
// SwapRouter02's exactInputSingle, exactInput, V2 swapExactTokensForTokens
// and multicall(deadline, data) with its MSG_SENDER/ADDRESS_THIS recipients
// and CONTRACT_BALANCE (amountIn 0) conventions. Within one price range V3
// is the constant-product curve on virtual reserves L/sqrtP and L*sqrtP, so
// the swap step is V3's single-range step (SqrtPriceMath) with the pool fee;
// a full-range position never crosses a tick. Quoter and pool share the
// step, so a quote equals the executed swap, as on a real chain.
pragma solidity 0.8.37;

interface IERC20V3 {
    function balanceOf(address) external view returns (uint256);
    function transfer(address, uint256) external returns (bool);
    function transferFrom(address, address, uint256) external returns (bool);
}

interface IUniswapV3SwapCallback {
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external;
}

// V3Path reads hop i of a packed path: token (20 bytes), fee (3), token.
library V3Path {
    function hops(bytes memory p) internal pure returns (uint256) {
        require(p.length >= 43 && (p.length - 20) % 23 == 0, "bad path");
        return (p.length - 20) / 23;
    }

    function hop(bytes memory p, uint256 i) internal pure returns (address a, uint24 fee, address b) {
        uint256 o = i * 23;
        assembly {
            a := shr(96, mload(add(add(p, 32), o)))
            fee := and(shr(232, mload(add(add(p, 52), o))), 0xffffff)
            b := shr(96, mload(add(add(p, 55), o)))
        }
    }
}

contract UniswapV3Pool {
    address public immutable factory;
    address public immutable token0;
    address public immutable token1;
    uint24 public immutable fee;
    uint128 public liquidity;
    uint160 internal sqrtPriceX96;

    event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);

    constructor(address t0, address t1, uint24 fee_) {
        factory = msg.sender;
        (token0, token1, fee) = (t0, t1, fee_);
    }

    function slot0()
        external
        view
        returns (uint160, int24, uint16, uint16, uint16, uint8, bool)
    {
        return (sqrtPriceX96, 0, 0, 1, 1, 0, true);
    }

    // initialize sets the price and the full-range liquidity; the caller has
    // already sent the matching amounts of both tokens.
    function initialize(uint160 sqrtP, uint128 l) external {
        require(sqrtPriceX96 == 0, "AI");
        sqrtPriceX96 = sqrtP;
        liquidity = l;
    }

    // step is the exact-input swap step: the output and the price after.
    function step(bool zeroForOne, uint256 amountIn) public view returns (uint256 amountOut, uint160 next) {
        uint256 l = liquidity;
        uint256 sqrtP = sqrtPriceX96;
        uint256 q = 1 << 96;
        uint256 inLessFee = amountIn * (1e6 - fee) / 1e6;
        if (zeroForOne) {
            // token0 in: sqrtP falls to L*sqrtP / (L + in*sqrtP/Q96).
            uint256 n = l * q / (l * q / sqrtP + inLessFee);
            amountOut = l * (sqrtP - n) / q;
            next = uint160(n);
        } else {
            // token1 in: sqrtP rises by in*Q96/L.
            uint256 n = sqrtP + inLessFee * q / l;
            amountOut = l * q / sqrtP - l * q / n;
            next = uint160(n);
        }
    }

    // swap is exact input only: it sends the output, then asks the caller
    // to pay through uniswapV3SwapCallback and checks it did.
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160, bytes calldata data)
        external
        returns (int256 amount0, int256 amount1)
    {
        require(amountSpecified > 0, "exact input only");
        (uint256 out, uint160 next) = step(zeroForOne, uint256(amountSpecified));
        sqrtPriceX96 = next;
        (address tin, address tout) = zeroForOne ? (token0, token1) : (token1, token0);
        require(IERC20V3(tout).transfer(recipient, out), "TF");
        (amount0, amount1) = zeroForOne ? (amountSpecified, -int256(out)) : (-int256(out), amountSpecified);
        uint256 before = IERC20V3(tin).balanceOf(address(this));
        IUniswapV3SwapCallback(msg.sender).uniswapV3SwapCallback(amount0, amount1, data);
        require(IERC20V3(tin).balanceOf(address(this)) >= before + uint256(amountSpecified), "IIA");
        emit Swap(msg.sender, recipient, amount0, amount1, next, liquidity, 0);
    }
}

contract UniswapV3Factory {
    mapping(address => mapping(address => mapping(uint24 => address))) public getPool;

    event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool);

    function createPool(address a, address b, uint24 fee) external returns (address pool) {
        require(a != b);
        (address t0, address t1) = a < b ? (a, b) : (b, a);
        require(getPool[t0][t1][fee] == address(0));
        pool = address(new UniswapV3Pool(t0, t1, fee));
        getPool[t0][t1][fee] = pool;
        getPool[t1][t0][fee] = pool;
        emit PoolCreated(t0, t1, fee, 60, pool);
    }
}

contract QuoterV2 {
    address public immutable factory;

    struct QuoteExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint24 fee;
        uint160 sqrtPriceLimitX96;
    }

    constructor(address factory_) {
        factory = factory_;
    }

    function quoteExactInputSingle(QuoteExactInputSingleParams memory p)
        public
        returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)
    {
        UniswapV3Pool pool = UniswapV3Pool(UniswapV3Factory(factory).getPool(p.tokenIn, p.tokenOut, p.fee));
        require(address(pool) != address(0), "no pool");
        (amountOut, sqrtPriceX96After) = pool.step(p.tokenIn == pool.token0(), p.amountIn);
        return (amountOut, sqrtPriceX96After, 0, 80000);
    }

    function quoteExactInput(bytes memory path, uint256 amountIn)
        public
        returns (uint256 amountOut, uint160[] memory sqrtPriceX96AfterList, uint32[] memory initializedTicksCrossedList, uint256 gasEstimate)
    {
        uint256 n = V3Path.hops(path);
        sqrtPriceX96AfterList = new uint160[](n);
        initializedTicksCrossedList = new uint32[](n);
        for (uint256 i; i < n; i++) {
            (address a, uint24 f, address b) = V3Path.hop(path, i);
            (amountIn, sqrtPriceX96AfterList[i],,) = quoteExactInputSingle(QuoteExactInputSingleParams(a, b, amountIn, f, 0));
        }
        return (amountIn, sqrtPriceX96AfterList, initializedTicksCrossedList, 80000 * n);
    }
}

interface IV2Factory {
    function getPair(address, address) external view returns (address);
}

interface IV2Pair {
    function getReserves() external view returns (uint112, uint112, uint32);
    function token0() external view returns (address);
    function swap(uint256, uint256, address, bytes calldata) external;
}

// SwapRouter02 subset: V3 exact-input swaps (single and multi-hop), V2
// exact-input swaps through factoryV2, and multicall with a deadline.
contract SwapRouter02 {
    address public immutable factory;
    address public immutable factoryV2;
    address internal constant MSG_SENDER = address(1);
    address internal constant ADDRESS_THIS = address(2);
    address private payer;

    struct ExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint24 fee;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
        uint160 sqrtPriceLimitX96;
    }

    struct ExactInputParams {
        bytes path;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
    }

    constructor(address factory_, address factoryV2_) {
        factory = factory_;
        factoryV2 = factoryV2_;
    }

    function _recipient(address r) internal view returns (address) {
        if (r == MSG_SENDER) return msg.sender;
        if (r == ADDRESS_THIS) return address(this);
        return r;
    }

    function _pay(address token, address from, address to, uint256 amt) internal {
        if (from == address(this)) require(IERC20V3(token).transfer(to, amt), "STF");
        else require(IERC20V3(token).transferFrom(from, to, amt), "STF");
    }

    function _swapV3(address a, address b, uint24 f, uint256 amt, address to, address from) internal returns (uint256) {
        address pool = UniswapV3Factory(factory).getPool(a, b, f);
        require(pool != address(0), "no pool");
        bool zeroForOne = a < b;
        payer = from;
        (int256 a0, int256 a1) = UniswapV3Pool(pool).swap(to, zeroForOne, int256(amt), 0, abi.encode(a, b, f));
        payer = address(0);
        return uint256(-(zeroForOne ? a1 : a0));
    }

    function uniswapV3SwapCallback(int256 d0, int256 d1, bytes calldata data) external {
        (address a, address b, uint24 f) = abi.decode(data, (address, address, uint24));
        require(msg.sender == UniswapV3Factory(factory).getPool(a, b, f), "not a pool");
        _pay(a, payer, msg.sender, uint256(d0 > 0 ? d0 : d1));
    }

    function exactInputSingle(ExactInputSingleParams calldata p) external payable returns (uint256 amountOut) {
        uint256 amt = p.amountIn;
        address from = msg.sender;
        if (amt == 0) {
            (amt, from) = (IERC20V3(p.tokenIn).balanceOf(address(this)), address(this));
        }
        amountOut = _swapV3(p.tokenIn, p.tokenOut, p.fee, amt, _recipient(p.recipient), from);
        require(amountOut >= p.amountOutMinimum, "Too little received");
    }

    function exactInput(ExactInputParams memory p) external payable returns (uint256 amountOut) {
        uint256 n = V3Path.hops(p.path);
        address from = msg.sender;
        if (p.amountIn == 0) {
            (address first,,) = V3Path.hop(p.path, 0);
            (p.amountIn, from) = (IERC20V3(first).balanceOf(address(this)), address(this));
        }
        for (uint256 i; i < n; i++) {
            (address a, uint24 f, address b) = V3Path.hop(p.path, i);
            address to = i + 1 < n ? address(this) : _recipient(p.recipient);
            p.amountIn = _swapV3(a, b, f, p.amountIn, to, from);
            from = address(this);
        }
        amountOut = p.amountIn;
        require(amountOut >= p.amountOutMinimum, "Too little received");
    }

    function _pairOf(address a, address b) internal view returns (address pair, uint256 ra, uint256 rb) {
        pair = IV2Factory(factoryV2).getPair(a, b);
        require(pair != address(0), "no pair");
        (uint112 r0, uint112 r1,) = IV2Pair(pair).getReserves();
        (ra, rb) = a == IV2Pair(pair).token0() ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] calldata path, address to)
        external
        payable
        returns (uint256 amountOut)
    {
        address from = msg.sender;
        if (amountIn == 0) {
            (amountIn, from) = (IERC20V3(path[0]).balanceOf(address(this)), address(this));
        }
        (address first,,) = _pairOf(path[0], path[1]);
        _pay(path[0], from, first, amountIn);
        address rcpt = _recipient(to);
        address last = path[path.length - 1];
        uint256 before = IERC20V3(last).balanceOf(rcpt);
        for (uint256 i; i < path.length - 1; i++) {
            (address pair, uint256 ra, uint256 rb) = _pairOf(path[i], path[i + 1]);
            uint256 input = IERC20V3(path[i]).balanceOf(pair) - ra;
            uint256 out = input * 997 * rb / (ra * 1000 + input * 997);
            address next = rcpt;
            if (i < path.length - 2) {
                (next,,) = _pairOf(path[i + 1], path[i + 2]);
            }
            (uint256 o0, uint256 o1) = path[i] == IV2Pair(pair).token0() ? (uint256(0), out) : (out, uint256(0));
            IV2Pair(pair).swap(o0, o1, next, new bytes(0));
        }
        amountOut = IERC20V3(last).balanceOf(rcpt) - before;
        require(amountOut >= amountOutMin, "Too little received");
    }

    function multicall(uint256 deadline, bytes[] calldata data) external payable returns (bytes[] memory results) {
        require(block.timestamp <= deadline, "Transaction too old");
        results = new bytes[](data.length);
        for (uint256 i; i < data.length; i++) {
            (bool ok, bytes memory r) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly {
                    revert(add(r, 32), mload(r))
                }
            }
            results[i] = r;
        }
    }
}
