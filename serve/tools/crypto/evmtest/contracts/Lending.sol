// SPDX-License-Identifier: MIT
// Lending markets for the crypto tools' tests, written for this project with
// the real read interfaces and storage semantics: an Aave-V3-style Pool
// whose getReserveData(asset) returns the ReserveData struct (rates in ray,
// 1e27, per year; an unlisted asset gives the zero struct, as Aave's does),
// and a Compound-V3-style Comet whose getUtilization, getSupplyRate and
// getBorrowRate follow Comet.sol's kinked per-second rate model (1e18
// scale).
pragma solidity 0.8.37;

contract AavePool {
    struct ReserveData {
        uint256 configuration;
        uint128 liquidityIndex;
        uint128 currentLiquidityRate;
        uint128 variableBorrowIndex;
        uint128 currentVariableBorrowRate;
        uint128 currentStableBorrowRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
        address aTokenAddress;
        address stableDebtTokenAddress;
        address variableDebtTokenAddress;
        address interestRateStrategyAddress;
        uint128 accruedToTreasury;
        uint128 unbacked;
        uint128 isolationModeTotalDebt;
    }

    mapping(address => ReserveData) internal reserves;
    uint16 internal count;

    // setReserve lists asset (or updates its rates); aToken stands for the
    // receipt token's address.
    function setReserve(address asset, uint128 liquidityRate, uint128 variableBorrowRate, address aToken) external {
        ReserveData storage r = reserves[asset];
        if (r.aTokenAddress == address(0)) {
            r.id = count++;
            r.liquidityIndex = 1e27;
            r.variableBorrowIndex = 1e27;
        }
        r.currentLiquidityRate = liquidityRate;
        r.currentVariableBorrowRate = variableBorrowRate;
        r.aTokenAddress = aToken;
        r.lastUpdateTimestamp = uint40(block.timestamp);
    }

    function getReserveData(address asset) external view returns (ReserveData memory) {
        return reserves[asset];
    }
}

contract Comet {
    uint64 internal constant FACTOR_SCALE = 1e18;
    address public immutable baseToken;
    uint64 public immutable supplyKink;
    uint64 public immutable supplyPerSecondInterestRateSlopeLow;
    uint64 public immutable supplyPerSecondInterestRateSlopeHigh;
    uint64 public immutable supplyPerSecondInterestRateBase;
    uint64 public immutable borrowKink;
    uint64 public immutable borrowPerSecondInterestRateSlopeLow;
    uint64 public immutable borrowPerSecondInterestRateSlopeHigh;
    uint64 public immutable borrowPerSecondInterestRateBase;
    uint256 internal totalSupplyBase;
    uint256 internal totalBorrowBase;

    constructor(address base, uint64[8] memory r) {
        baseToken = base;
        (supplyKink, supplyPerSecondInterestRateSlopeLow, supplyPerSecondInterestRateSlopeHigh, supplyPerSecondInterestRateBase) =
            (r[0], r[1], r[2], r[3]);
        (borrowKink, borrowPerSecondInterestRateSlopeLow, borrowPerSecondInterestRateSlopeHigh, borrowPerSecondInterestRateBase) =
            (r[4], r[5], r[6], r[7]);
    }

    // setTotals stands for supplies and borrows (indexes are 1 here).
    function setTotals(uint256 supplied, uint256 borrowed) external {
        (totalSupplyBase, totalBorrowBase) = (supplied, borrowed);
    }

    function totalSupply() external view returns (uint256) {
        return totalSupplyBase;
    }

    function totalBorrow() external view returns (uint256) {
        return totalBorrowBase;
    }

    function getUtilization() public view returns (uint64) {
        if (totalSupplyBase == 0) return 0;
        return uint64(totalBorrowBase * FACTOR_SCALE / totalSupplyBase);
    }

    function mulFactor(uint256 n, uint256 factor) internal pure returns (uint256) {
        return n * factor / FACTOR_SCALE;
    }

    function getSupplyRate(uint256 utilization) public view returns (uint64) {
        if (utilization <= supplyKink) {
            return uint64(supplyPerSecondInterestRateBase + mulFactor(supplyPerSecondInterestRateSlopeLow, utilization));
        }
        return uint64(supplyPerSecondInterestRateBase + mulFactor(supplyPerSecondInterestRateSlopeLow, supplyKink)
            + mulFactor(supplyPerSecondInterestRateSlopeHigh, utilization - supplyKink));
    }

    function getBorrowRate(uint256 utilization) public view returns (uint64) {
        if (utilization <= borrowKink) {
            return uint64(borrowPerSecondInterestRateBase + mulFactor(borrowPerSecondInterestRateSlopeLow, utilization));
        }
        return uint64(borrowPerSecondInterestRateBase + mulFactor(borrowPerSecondInterestRateSlopeLow, borrowKink)
            + mulFactor(borrowPerSecondInterestRateSlopeHigh, utilization - borrowKink));
    }
}
