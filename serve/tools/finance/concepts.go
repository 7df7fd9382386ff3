package finance

// The concepts each fundamental is read from, in order of preference. The
// first concept with a value for the fiscal year wins; the answer names the
// concept used. Fallbacks cover filers that tag the same line differently
// (revenue before and after ASC 606, banks, IFRS filers).

// kind says how a metric's facts are matched to the fiscal year.
type kind int

const (
	duration kind = iota // flows over the year: income statement, cash flow
	instant              // balances at year end: balance sheet
)

// unitKind says which unit a metric's facts carry.
type unitKind int

const (
	money    unitKind = iota // the reporting currency: USD, EUR, ...
	perShare                 // currency per share: USD/shares
	shares                   // a share count
)

type metric struct {
	key  string
	kind kind
	unit unitKind
	gaap []string // us-gaap concepts
	ifrs []string // ifrs-full concepts
}

// Metric keys, also the JSON names of the fundamentals.
const (
	mRevenue            = "revenue"
	mGrossProfit        = "gross_profit"
	mOperatingIncome    = "operating_income"
	mNetIncome          = "net_income"
	mEPSBasic           = "eps_basic"
	mEPSDiluted         = "eps_diluted"
	mTotalAssets        = "total_assets"
	mTotalLiabilities   = "total_liabilities"
	mTotalEquity        = "total_equity"
	mCash               = "cash"
	mDebt               = "debt"
	mCurrentAssets      = "current_assets"
	mCurrentLiabilities = "current_liabilities"
	mOperatingCashFlow  = "operating_cash_flow"
	mCapex              = "capital_expenditure"
	mSharesOutstanding  = "shares_outstanding"
)

var metrics = []metric{
	{mRevenue, duration, money,
		[]string{"Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax",
			"RevenueFromContractWithCustomerIncludingAssessedTax", "SalesRevenueNet", "SalesRevenueGoodsNet",
			"RevenuesNetOfInterestExpense"},
		[]string{"Revenue", "RevenueFromContractsWithCustomers"}},
	{mGrossProfit, duration, money, []string{"GrossProfit"}, []string{"GrossProfit"}},
	{mOperatingIncome, duration, money, []string{"OperatingIncomeLoss"}, []string{"ProfitLossFromOperatingActivities"}},
	{mNetIncome, duration, money,
		[]string{"NetIncomeLoss", "NetIncomeLossAvailableToCommonStockholdersBasic", "ProfitLoss"},
		[]string{"ProfitLossAttributableToOwnersOfParent", "ProfitLoss"}},
	{mEPSBasic, duration, perShare,
		[]string{"EarningsPerShareBasic", "EarningsPerShareBasicAndDiluted"},
		[]string{"BasicEarningsLossPerShare", "BasicAndDilutedEarningsLossPerShare"}},
	{mEPSDiluted, duration, perShare,
		[]string{"EarningsPerShareDiluted", "EarningsPerShareBasicAndDiluted"},
		[]string{"DilutedEarningsLossPerShare", "BasicAndDilutedEarningsLossPerShare"}},
	{mTotalAssets, instant, money, []string{"Assets"}, []string{"Assets"}},
	{mTotalLiabilities, instant, money, []string{"Liabilities"}, []string{"Liabilities"}},
	{mTotalEquity, instant, money,
		[]string{"StockholdersEquity", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"},
		[]string{"EquityAttributableToOwnersOfParent", "Equity"}},
	{mCash, instant, money,
		[]string{"CashAndCashEquivalentsAtCarryingValue", "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents", "Cash"},
		[]string{"CashAndCashEquivalents"}},
	{mDebt, instant, money,
		[]string{"LongTermDebt", "DebtLongtermAndShorttermCombinedAmount", "LongTermDebtNoncurrent"},
		[]string{"Borrowings", "LongtermBorrowings", "NoncurrentPortionOfNoncurrentBorrowings"}},
	{mCurrentAssets, instant, money, []string{"AssetsCurrent"}, []string{"CurrentAssets"}},
	{mCurrentLiabilities, instant, money, []string{"LiabilitiesCurrent"}, []string{"CurrentLiabilities"}},
	{mOperatingCashFlow, duration, money,
		[]string{"NetCashProvidedByUsedInOperatingActivities", "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"},
		[]string{"CashFlowsFromUsedInOperatingActivities"}},
	{mCapex, duration, money,
		[]string{"PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"},
		[]string{"PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities", "PurchaseOfPropertyPlantAndEquipment"}},
	{mSharesOutstanding, instant, shares,
		[]string{"CommonStockSharesOutstanding"},
		[]string{"NumberOfSharesOutstanding"}},
}

// Concepts used to derive a value when a filer does not tag it.
const (
	gaapLiabilitiesAndEquity = "LiabilitiesAndStockholdersEquity"
	ifrsEquityAndLiabilities = "EquityAndLiabilities"
	gaapEquityWithNCI        = "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"
	ifrsEquityWithNCI        = "Equity"
	deiSharesOutstanding     = "EntityCommonStockSharesOutstanding"
)

const (
	taxGAAP = "us-gaap"
	taxIFRS = "ifrs-full"
	taxDEI  = "dei"
)

// keepConcept is edgar.Config.KeepConcept: only these concepts are decoded
// from a companyfacts file.
func keepConcept(taxonomy, concept string) bool {
	_, ok := wanted[taxonomy+":"+concept]
	return ok
}

var wanted = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, mt := range metrics {
		for _, c := range mt.gaap {
			m[taxGAAP+":"+c] = struct{}{}
		}
		for _, c := range mt.ifrs {
			m[taxIFRS+":"+c] = struct{}{}
		}
	}
	for _, c := range []string{taxGAAP + ":" + gaapLiabilitiesAndEquity, taxIFRS + ":" + ifrsEquityAndLiabilities,
		taxGAAP + ":" + gaapEquityWithNCI, taxIFRS + ":" + ifrsEquityWithNCI, taxDEI + ":" + deiSharesOutstanding} {
		m[c] = struct{}{}
	}
	return m
}()

// annualForms are the annual reports fundamentals are taken from, with
// their amendments (which carry restated values).
var annualForms = map[string]bool{
	"10-K": true, "10-K/A": true, "10-KT": true, "10-KT/A": true, "10-K405": true,
	"20-F": true, "20-F/A": true, "40-F": true, "40-F/A": true,
}
