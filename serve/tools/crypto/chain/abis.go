package chain

import (
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// The contract interfaces the tools call, as standard JSON ABIs: ERC-20
// (with the common owner()), Uniswap V2 factory, pair and router,
// Multicall3, Uniswap V3 QuoterV2 and SwapRouter02, Aave V3's Pool
// getReserveData (its ReserveData struct is static, so its ABI encoding is
// that of the fifteen flat outputs below), Compound V3's Comet rate
// getters (uint64 in Comet, read as uint256: the same 32-byte word, decoded
// as *big.Int like every other number here), the SellTester token_report places with a state
// override (evmtest/contracts/Infra.sol), and the client's own Lens (lens.go).
const abiJSON = `[
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"a","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"allowance","stateMutability":"view","inputs":[{"name":"o","type":"address"},{"name":"s","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
{"type":"function","name":"symbol","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"totalSupply","stateMutability":"view","inputs":[],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"owner","stateMutability":"view","inputs":[],"outputs":[{"type":"address"}]},
{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"approve","stateMutability":"nonpayable","inputs":[{"name":"s","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"getPair","stateMutability":"view","inputs":[{"name":"a","type":"address"},{"name":"b","type":"address"}],"outputs":[{"type":"address"}]},
{"type":"function","name":"getReserves","stateMutability":"view","inputs":[],"outputs":[{"name":"r0","type":"uint112"},{"name":"r1","type":"uint112"},{"name":"ts","type":"uint32"}]},
{"type":"function","name":"token0","stateMutability":"view","inputs":[],"outputs":[{"type":"address"}]},
{"type":"function","name":"token1","stateMutability":"view","inputs":[],"outputs":[{"type":"address"}]},
{"type":"function","name":"getEthBalance","stateMutability":"view","inputs":[{"name":"a","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"getBlockNumber","stateMutability":"view","inputs":[],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"getCurrentBlockTimestamp","stateMutability":"view","inputs":[],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"aggregate3","stateMutability":"payable","inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"target","type":"address"},{"name":"allowFailure","type":"bool"},{"name":"callData","type":"bytes"}]}],"outputs":[{"name":"returnData","type":"tuple[]","components":[{"name":"success","type":"bool"},{"name":"returnData","type":"bytes"}]}]},
{"type":"function","name":"swapExactTokensForTokensSupportingFeeOnTransferTokens","stateMutability":"nonpayable","inputs":[{"name":"amountIn","type":"uint256"},{"name":"amountOutMin","type":"uint256"},{"name":"path","type":"address[]"},{"name":"to","type":"address"},{"name":"deadline","type":"uint256"}],"outputs":[]},
{"type":"function","name":"swapExactETHForTokensSupportingFeeOnTransferTokens","stateMutability":"payable","inputs":[{"name":"amountOutMin","type":"uint256"},{"name":"path","type":"address[]"},{"name":"to","type":"address"},{"name":"deadline","type":"uint256"}],"outputs":[]},
{"type":"function","name":"swapExactTokensForETHSupportingFeeOnTransferTokens","stateMutability":"nonpayable","inputs":[{"name":"amountIn","type":"uint256"},{"name":"amountOutMin","type":"uint256"},{"name":"path","type":"address[]"},{"name":"to","type":"address"},{"name":"deadline","type":"uint256"}],"outputs":[]},
{"type":"function","name":"getPool","stateMutability":"view","inputs":[{"name":"a","type":"address"},{"name":"b","type":"address"},{"name":"fee","type":"uint24"}],"outputs":[{"type":"address"}]},
{"type":"function","name":"slot0","stateMutability":"view","inputs":[],"outputs":[{"name":"sqrtPriceX96","type":"uint160"},{"name":"tick","type":"int24"},{"name":"observationIndex","type":"uint16"},{"name":"observationCardinality","type":"uint16"},{"name":"observationCardinalityNext","type":"uint16"},{"name":"feeProtocol","type":"uint8"},{"name":"unlocked","type":"bool"}]},
{"type":"function","name":"liquidity","stateMutability":"view","inputs":[],"outputs":[{"type":"uint128"}]},
{"type":"function","name":"quoteExactInputSingle","stateMutability":"nonpayable","inputs":[{"name":"params","type":"tuple","components":[{"name":"tokenIn","type":"address"},{"name":"tokenOut","type":"address"},{"name":"amountIn","type":"uint256"},{"name":"fee","type":"uint24"},{"name":"sqrtPriceLimitX96","type":"uint160"}]}],"outputs":[{"name":"amountOut","type":"uint256"},{"name":"sqrtPriceX96After","type":"uint160"},{"name":"initializedTicksCrossed","type":"uint32"},{"name":"gasEstimate","type":"uint256"}]},
{"type":"function","name":"exactInputSingle","stateMutability":"payable","inputs":[{"name":"params","type":"tuple","components":[{"name":"tokenIn","type":"address"},{"name":"tokenOut","type":"address"},{"name":"fee","type":"uint24"},{"name":"recipient","type":"address"},{"name":"amountIn","type":"uint256"},{"name":"amountOutMinimum","type":"uint256"},{"name":"sqrtPriceLimitX96","type":"uint160"}]}],"outputs":[{"name":"amountOut","type":"uint256"}]},
{"type":"function","name":"quoteExactInput","stateMutability":"nonpayable","inputs":[{"name":"path","type":"bytes"},{"name":"amountIn","type":"uint256"}],"outputs":[{"name":"amountOut","type":"uint256"},{"name":"sqrtPriceX96AfterList","type":"uint160[]"},{"name":"initializedTicksCrossedList","type":"uint32[]"},{"name":"gasEstimate","type":"uint256"}]},
{"type":"function","name":"exactInput","stateMutability":"payable","inputs":[{"name":"params","type":"tuple","components":[{"name":"path","type":"bytes"},{"name":"recipient","type":"address"},{"name":"amountIn","type":"uint256"},{"name":"amountOutMinimum","type":"uint256"}]}],"outputs":[{"name":"amountOut","type":"uint256"}]},
{"type":"function","name":"swapExactTokensForTokens","stateMutability":"payable","inputs":[{"name":"amountIn","type":"uint256"},{"name":"amountOutMin","type":"uint256"},{"name":"path","type":"address[]"},{"name":"to","type":"address"}],"outputs":[{"name":"amountOut","type":"uint256"}]},
{"type":"function","name":"multicall","stateMutability":"payable","inputs":[{"name":"deadline","type":"uint256"},{"name":"data","type":"bytes[]"}],"outputs":[{"name":"results","type":"bytes[]"}]},
{"type":"function","name":"getReserveData","stateMutability":"view","inputs":[{"name":"asset","type":"address"}],"outputs":[{"name":"configuration","type":"uint256"},{"name":"liquidityIndex","type":"uint128"},{"name":"currentLiquidityRate","type":"uint128"},{"name":"variableBorrowIndex","type":"uint128"},{"name":"currentVariableBorrowRate","type":"uint128"},{"name":"currentStableBorrowRate","type":"uint128"},{"name":"lastUpdateTimestamp","type":"uint40"},{"name":"id","type":"uint16"},{"name":"aTokenAddress","type":"address"},{"name":"stableDebtTokenAddress","type":"address"},{"name":"variableDebtTokenAddress","type":"address"},{"name":"interestRateStrategyAddress","type":"address"},{"name":"accruedToTreasury","type":"uint128"},{"name":"unbacked","type":"uint128"},{"name":"isolationModeTotalDebt","type":"uint128"}]},
{"type":"function","name":"baseToken","stateMutability":"view","inputs":[],"outputs":[{"type":"address"}]},
{"type":"function","name":"getUtilization","stateMutability":"view","inputs":[],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"getSupplyRate","stateMutability":"view","inputs":[{"name":"utilization","type":"uint256"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"getBorrowRate","stateMutability":"view","inputs":[{"name":"utilization","type":"uint256"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"sell","stateMutability":"nonpayable","inputs":[{"name":"tokens","type":"address[]"},{"name":"pairs","type":"address[]"},{"name":"amountIn","type":"uint256"}],"outputs":[{"name":"expected","type":"uint256"},{"name":"received","type":"uint256"}]},
{"type":"function","name":"resolve","stateMutability":"view","inputs":[{"name":"factory","type":"address"},{"name":"lookup","type":"bytes"},{"name":"reads","type":"bytes[]"}],"outputs":[{"name":"at","type":"address"},{"name":"ok","type":"bool[]"},{"name":"out","type":"bytes[]"}]},
{"type":"function","name":"route","stateMutability":"nonpayable","inputs":[{"name":"amountIn","type":"uint256"},{"name":"depths","type":"tuple[][]","components":[{"name":"v3","type":"bool"},{"name":"quoter","type":"address"},{"name":"tokenIn","type":"address"},{"name":"tokenOut","type":"address"},{"name":"fee","type":"uint24"},{"name":"rIn","type":"uint256"},{"name":"rOut","type":"uint256"},{"name":"feeBps","type":"uint256"}]}],"outputs":[{"name":"outs","type":"uint256[]"},{"name":"picks","type":"uint256[]"}]},
{"type":"function","name":"code","stateMutability":"view","inputs":[{"name":"a","type":"address"}],"outputs":[{"type":"bytes"}]},
{"type":"function","name":"newer","stateMutability":"view","inputs":[{"name":"target","type":"uint256"},{"name":"step","type":"uint256"}],"outputs":[{"name":"count","type":"uint256"},{"name":"oldest","type":"uint256"},{"name":"current","type":"bool"}]},
{"type":"event","name":"Transfer","anonymous":false,"inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]},
{"type":"event","name":"Approval","anonymous":false,"inputs":[{"name":"owner","type":"address","indexed":true},{"name":"spender","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]}
]`

// ABI is the parsed set of interfaces above.
var ABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// Pack encodes a call of one of ABI's methods; it panics on a programming
// error (unknown method, wrong arguments).
func Pack(method string, args ...any) []byte {
	b, err := ABI.Pack(method, args...)
	if err != nil {
		panic("chain: pack " + method + ": " + err.Error())
	}
	return b
}
