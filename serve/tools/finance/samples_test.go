package finance

// Hand-written samples for the two filer shapes the shared fixtures lack (a
// foreign private issuer reporting in IFRS, and a restatement). They follow
// EDGAR's documented companyfacts format exactly
// (https://www.sec.gov/edgar/sec-api-documentation: facts.<taxonomy>.
// <Concept>.units.<unit>[] with start (durations only), end, val, accn, fy,
// fp, form, filed and, on the latest fact of a calendar period, frame), and
// the ticker-map format of company_tickers.json. The companies, CIKs,
// accession numbers and values are made up, not real filings; CIKs 9900001
// and 9900002 are not assigned by the SEC.

// SampleTickers extends the real ticker map with the two sample filers,
// and with a ticker for EDGAR's real test entity without filings (CIK
// 350001, which has none in the real map).
var SampleTickers = map[string]string{
	"XNOF": `{"cik_str":350001,"ticker":"XNOF","title":"EDGAR TEST ENTITY"}`,
	"XFPI": `{"cik_str":9900001,"ticker":"XFPI","title":"EXAMPLE FOREIGN ISSUER N.V."}`,
	"XRST": `{"cik_str":9900002,"ticker":"XRST","title":"EXAMPLE RESTATING CORP"}`,
}

// SampleIFRSFacts is a 20-F filer reporting in EUR under IFRS: the fiscal
// 2024 20-F (filed 2025-03-05) with 2023 comparatives, the 2023 20-F, a
// half-year 6-K that must not count as annual, and a USD convenience
// translation of revenue that must not change the currency.
const SampleIFRSFacts = `{"cik":9900001,"entityName":"EXAMPLE FOREIGN ISSUER N.V.","facts":{
"dei":{"EntityCommonStockSharesOutstanding":{"label":"Entity Common Stock, Shares Outstanding","description":"","units":{"shares":[
 {"end":"2024-02-28","val":401000000,"accn":"0009900001-24-000004","fy":2023,"fp":"FY","form":"20-F","filed":"2024-03-06","frame":"CY2024Q1I"},
 {"end":"2025-02-28","val":398500000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2025Q1I"}]}}},
"ifrs-full":{
"Revenue":{"label":"Revenue","description":"","units":{"EUR":[
 {"start":"2023-01-01","end":"2023-12-31","val":27500000000,"accn":"0009900001-24-000004","fy":2023,"fp":"FY","form":"20-F","filed":"2024-03-06"},
 {"start":"2023-01-01","end":"2023-12-31","val":27500000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2023"},
 {"start":"2024-01-01","end":"2024-06-30","val":15100000000,"accn":"0009900001-24-000019","fy":2024,"fp":"Q2","form":"6-K","filed":"2024-07-25","frame":"CY2024Q2"},
 {"start":"2024-01-01","end":"2024-12-31","val":30400000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}],
 "USD":[
 {"start":"2024-01-01","end":"2024-12-31","val":33600000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"GrossProfit":{"label":"Gross profit","description":"","units":{"EUR":[
 {"start":"2024-01-01","end":"2024-12-31","val":22200000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"ProfitLossFromOperatingActivities":{"label":"Profit (loss) from operating activities","description":"","units":{"EUR":[
 {"start":"2024-01-01","end":"2024-12-31","val":6100000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"ProfitLoss":{"label":"Profit (loss)","description":"","units":{"EUR":[
 {"start":"2024-01-01","end":"2024-12-31","val":3200000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"ProfitLossAttributableToOwnersOfParent":{"label":"Profit (loss), attributable to owners of parent","description":"","units":{"EUR":[
 {"start":"2024-01-01","end":"2024-12-31","val":3150000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"BasicEarningsLossPerShare":{"label":"Basic earnings (loss) per share","description":"","units":{"EUR/shares":[
 {"start":"2024-01-01","end":"2024-12-31","val":7.89,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"DilutedEarningsLossPerShare":{"label":"Diluted earnings (loss) per share","description":"","units":{"EUR/shares":[
 {"start":"2024-01-01","end":"2024-12-31","val":7.81,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"Assets":{"label":"Assets","description":"","units":{"EUR":[
 {"end":"2023-12-31","val":68000000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2023Q4I"},
 {"end":"2024-12-31","val":72500000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"Liabilities":{"label":"Liabilities","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":29500000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"EquityAttributableToOwnersOfParent":{"label":"Equity attributable to owners of parent","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":42800000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"Equity":{"label":"Equity","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":43000000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"CashAndCashEquivalents":{"label":"Cash and cash equivalents","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":9600000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"CurrentAssets":{"label":"Current assets","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":21000000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"CurrentLiabilities":{"label":"Current liabilities","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":14000000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"Borrowings":{"label":"Borrowings","description":"","units":{"EUR":[
 {"end":"2024-12-31","val":7700000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024Q4I"}]}},
"CashFlowsFromUsedInOperatingActivities":{"label":"Cash flows from (used in) operating activities","description":"","units":{"EUR":[
 {"start":"2024-01-01","end":"2024-12-31","val":5200000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}},
"PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities":{"label":"Purchase of property, plant and equipment","description":"","units":{"EUR":[
 {"start":"2024-01-01","end":"2024-12-31","val":900000000,"accn":"0009900001-25-000006","fy":2024,"fp":"FY","form":"20-F","filed":"2025-03-05","frame":"CY2024"}]}}
}}}`

// SampleRestatedFacts is a US GAAP filer whose fiscal 2024 10-K (filed
// 2025-02-20) was amended by a 10-K/A (filed 2025-06-16) restating revenue
// and net income; the 10-K/A repeats assets unchanged (a duplicate, not a
// restatement). A later DEF 14A and a 10-Q repeat figures for the same
// periods and must be ignored. Liabilities are not tagged, so they are
// derived from LiabilitiesAndStockholdersEquity - StockholdersEquity.
const SampleRestatedFacts = `{"cik":9900002,"entityName":"EXAMPLE RESTATING CORP","facts":{
"us-gaap":{
"Revenues":{"label":"Revenues","description":"","units":{"USD":[
 {"start":"2023-01-01","end":"2023-12-31","val":900000000,"accn":"0009900002-24-000008","fy":2023,"fp":"FY","form":"10-K","filed":"2024-02-22"},
 {"start":"2023-01-01","end":"2023-12-31","val":900000000,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20","frame":"CY2023"},
 {"start":"2024-01-01","end":"2024-12-31","val":1000000000,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20"},
 {"start":"2024-10-01","end":"2024-12-31","val":260000000,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20","frame":"CY2024Q4"},
 {"start":"2024-01-01","end":"2024-12-31","val":950000000,"accn":"0009900002-25-000031","fy":2024,"fp":"FY","form":"10-K/A","filed":"2025-06-16","frame":"CY2024"}]}},
"NetIncomeLoss":{"label":"Net Income (Loss)","description":"","units":{"USD":[
 {"start":"2024-01-01","end":"2024-12-31","val":120000000,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20"},
 {"start":"2024-01-01","end":"2024-12-31","val":95000000,"accn":"0009900002-25-000031","fy":2024,"fp":"FY","form":"10-K/A","filed":"2025-06-16"},
 {"start":"2024-01-01","end":"2024-12-31","val":120000000,"accn":"0009900002-25-000044","fy":null,"fp":null,"form":"DEF 14A","filed":"2025-07-01","frame":"CY2024"}]}},
"EarningsPerShareBasic":{"label":"Earnings Per Share, Basic","description":"","units":{"USD/shares":[
 {"start":"2024-01-01","end":"2024-12-31","val":1.2,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20"},
 {"start":"2024-01-01","end":"2024-12-31","val":0.95,"accn":"0009900002-25-000031","fy":2024,"fp":"FY","form":"10-K/A","filed":"2025-06-16","frame":"CY2024"}]}},
"Assets":{"label":"Assets","description":"","units":{"USD":[
 {"end":"2024-12-31","val":2000000000,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20"},
 {"end":"2024-12-31","val":2000000000,"accn":"0009900002-25-000031","fy":2024,"fp":"FY","form":"10-K/A","filed":"2025-06-16"},
 {"end":"2024-12-31","val":2100000000,"accn":"0009900002-25-000052","fy":2025,"fp":"Q2","form":"10-Q","filed":"2025-08-05","frame":"CY2024Q4I"}]}},
"LiabilitiesAndStockholdersEquity":{"label":"Liabilities and Equity","description":"","units":{"USD":[
 {"end":"2024-12-31","val":2000000000,"accn":"0009900002-25-000031","fy":2024,"fp":"FY","form":"10-K/A","filed":"2025-06-16","frame":"CY2024Q4I"}]}},
"StockholdersEquity":{"label":"Stockholders' Equity","description":"","units":{"USD":[
 {"end":"2024-12-31","val":800000000,"accn":"0009900002-25-000010","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-20"},
 {"end":"2024-12-31","val":775000000,"accn":"0009900002-25-000031","fy":2024,"fp":"FY","form":"10-K/A","filed":"2025-06-16","frame":"CY2024Q4I"}]}}
}}}`
