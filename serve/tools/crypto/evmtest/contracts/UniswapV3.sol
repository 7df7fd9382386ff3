// SPDX-License-Identifier: MIT
// A Uniswap-V3-style pool reduced to one full-range position, with the real
// interfaces the tools read: the factory's getPool(tokenA, tokenB, fee), the
// pool's slot0(), liquidity(), token0(), token1(), fee(), and QuoterV2's
// quoteExactInputSingle. Within one price range V3 is the constant-product
// curve on virtual reserves L/sqrtP and L*sqrtP, so the quoter's math is
// V3's single-range swap step (SqrtPriceMath) with the pool fee. The pool
// quotes but does not trade: the tools never send a swap.
pragma solidity 0.8.37;

contract UniswapV3Pool {
    address public immutable factory;
    address public immutable token0;
    address public immutable token1;
    uint24 public immutable fee;
    uint128 public liquidity;
    uint160 internal sqrtPriceX96;

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
        (uint160 sqrtP,,,,,,) = pool.slot0();
        uint256 l = pool.liquidity();
        uint256 q = 1 << 96;
        uint256 inLessFee = p.amountIn * (1e6 - p.fee) / 1e6;
        if (p.tokenIn == pool.token0()) {
            // token0 in: sqrtP falls to L*sqrtP / (L + in*sqrtP/Q96).
            uint256 next = l * q / (l * q / sqrtP + inLessFee);
            amountOut = l * (sqrtP - next) / q;
            sqrtPriceX96After = uint160(next);
        } else {
            // token1 in: sqrtP rises by in*Q96/L.
            uint256 next = sqrtP + inLessFee * q / l;
            amountOut = l * q / sqrtP - l * q / next;
            sqrtPriceX96After = uint160(next);
        }
        return (amountOut, sqrtPriceX96After, 0, 80000);
    }
}
