package finance

// Hand-written samples for the filer shapes the shared fixtures lack (a
// foreign private issuer reporting in IFRS, a restatement, and a 20-F
// amended by 20-F/As). They follow EDGAR's documented companyfacts format
// exactly (https://www.sec.gov/edgar/sec-api-documentation: facts.
// <taxonomy>.<Concept>.units.<unit>[] with start (durations only), end,
// val, accn, fy, fp, form, filed and, on the latest fact of a calendar
// period, frame), the submissions format of the real files in
// ../shared/fixtures/upstreams/sec-edgar (company header, columnar
// filings.recent, filings.files), and the ticker-map format of
// company_tickers.json. The companies, CIKs, accession numbers and values
// are made up, not real filings; CIKs 9900001, 9900002 and 9900004 are not
// assigned by the SEC.

// SampleTickers extends the real ticker map with the two sample filers,
// and with a ticker for EDGAR's real test entity without filings (CIK
// 350001, which has none in the real map).
var SampleTickers = map[string]string{
	"XNOF": `{"cik_str":350001,"ticker":"XNOF","title":"EDGAR TEST ENTITY"}`,
	"XFPI": `{"cik_str":9900001,"ticker":"XFPI","title":"EXAMPLE FOREIGN ISSUER N.V."}`,
	"XRST": `{"cik_str":9900002,"ticker":"XRST","title":"EXAMPLE RESTATING CORP"}`,
	"XAMD": `{"cik_str":9900004,"ticker":"XAMD","title":"EXAMPLE AMENDING PLC"}`,
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

// SampleAmendedFacts is a 20-F filer reporting in USD under IFRS whose
// fiscal 2024 20-F (filed 2025-04-10) was amended twice: a 20-F/A (filed
// 2025-06-20) correcting the cover page's share count, its only XBRL fact,
// and a 20-F/A (filed 2025-09-02) adding exhibits, with no XBRL at all (so
// only SampleAmendedSubmissions names it). The 2023 20-F and its own
// 20-F/A belong to another year.
const SampleAmendedFacts = `{"cik":9900004,"entityName":"EXAMPLE AMENDING PLC","facts":{
"dei":{"EntityCommonStockSharesOutstanding":{"label":"Entity Common Stock, Shares Outstanding","description":"","units":{"shares":[
 {"end":"2023-12-31","val":248000000,"accn":"0009900004-24-000011","fy":2023,"fp":"FY","form":"20-F","filed":"2024-04-12","frame":"CY2023Q4I"},
 {"end":"2024-12-31","val":250000000,"accn":"0009900004-25-000012","fy":2024,"fp":"FY","form":"20-F","filed":"2025-04-10"},
 {"end":"2024-12-31","val":251300000,"accn":"0009900004-25-000031","fy":2024,"fp":"FY","form":"20-F/A","filed":"2025-06-20","frame":"CY2024Q4I"}]}}},
"ifrs-full":{
"Revenue":{"label":"Revenue","description":"","units":{"USD":[
 {"start":"2023-01-01","end":"2023-12-31","val":4100000000,"accn":"0009900004-24-000011","fy":2023,"fp":"FY","form":"20-F","filed":"2024-04-12"},
 {"start":"2023-01-01","end":"2023-12-31","val":4100000000,"accn":"0009900004-25-000012","fy":2024,"fp":"FY","form":"20-F","filed":"2025-04-10","frame":"CY2023"},
 {"start":"2024-01-01","end":"2024-12-31","val":4550000000,"accn":"0009900004-25-000012","fy":2024,"fp":"FY","form":"20-F","filed":"2025-04-10","frame":"CY2024"}]}},
"ProfitLossAttributableToOwnersOfParent":{"label":"Profit (loss), attributable to owners of parent","description":"","units":{"USD":[
 {"start":"2024-01-01","end":"2024-12-31","val":610000000,"accn":"0009900004-25-000012","fy":2024,"fp":"FY","form":"20-F","filed":"2025-04-10","frame":"CY2024"}]}},
"Assets":{"label":"Assets","description":"","units":{"USD":[
 {"end":"2024-12-31","val":9800000000,"accn":"0009900004-25-000012","fy":2024,"fp":"FY","form":"20-F","filed":"2025-04-10","frame":"CY2024Q4I"}]}},
"EquityAttributableToOwnersOfParent":{"label":"Equity attributable to owners of parent","description":"","units":{"USD":[
 {"end":"2024-12-31","val":5200000000,"accn":"0009900004-25-000012","fy":2024,"fp":"FY","form":"20-F","filed":"2025-04-10","frame":"CY2024Q4I"}]}}
}}}`

// SampleAmendedSubmissions is the submissions file of the same filer,
// newest filing first: both 20-F/As of fiscal 2024, the 20-F, 6-Ks, and the
// 2023 20-F/A and 20-F (report date 2023-12-31, another year).
const SampleAmendedSubmissions = `{"cik":"0009900004","entityType":"operating","sic":"2834","sicDescription":"Pharmaceutical Preparations","ownerOrg":"03 Life Sciences","insiderTransactionForOwnerExists":0,"insiderTransactionForIssuerExists":0,"name":"EXAMPLE AMENDING PLC","tickers":["XAMD"],"exchanges":["NYSE"],"ein":"000000000","lei":null,"description":"","website":"","investorWebsite":"","category":"Non-accelerated filer","fiscalYearEnd":"1231","stateOfIncorporation":"X0","stateOfIncorporationDescription":"United Kingdom","addresses":{"mailing":{"street1":"1 EXAMPLE SQUARE","street2":null,"city":"LONDON","stateOrCountry":"X0","zipCode":"EC1A 1AA","stateOrCountryDescription":"United Kingdom","isForeignLocation":1,"foreignStateTerritory":null,"country":"United Kingdom","countryCode":"GB"},"business":{"street1":"1 EXAMPLE SQUARE","street2":null,"city":"LONDON","stateOrCountry":"X0","zipCode":"EC1A 1AA","stateOrCountryDescription":"United Kingdom","isForeignLocation":1,"foreignStateTerritory":null,"country":"United Kingdom","countryCode":"GB"}},"phone":"44-20-0000-0000","flags":"","formerNames":[],"filings":{"recent":{
"accessionNumber":["0009900004-25-000051","0009900004-25-000044","0009900004-25-000038","0009900004-25-000031","0009900004-25-000012","0009900004-24-000040","0009900004-24-000027","0009900004-24-000011"],
"filingDate":["2025-10-01","2025-09-02","2025-07-30","2025-06-20","2025-04-10","2024-10-02","2024-08-01","2024-04-12"],
"reportDate":["2025-09-30","2024-12-31","2025-06-30","2024-12-31","2024-12-31","2024-09-30","2023-12-31","2023-12-31"],
"acceptanceDateTime":["2025-10-01T16:05:11.000Z","2025-09-02T16:30:02.000Z","2025-07-30T06:01:45.000Z","2025-06-20T17:12:40.000Z","2025-04-10T06:15:09.000Z","2024-10-02T16:02:33.000Z","2024-08-01T16:44:21.000Z","2024-04-12T06:10:57.000Z"],
"act":["34","34","34","34","34","34","34","34"],
"form":["6-K","20-F/A","6-K","20-F/A","20-F","6-K","20-F/A","20-F"],
"fileNumber":["001-99004","001-99004","001-99004","001-99004","001-99004","001-99004","001-99004","001-99004"],
"filmNumber":["251000051","251000044","251000038","251000031","251000012","241000040","241000027","241000011"],
"items":["","","","","","","",""],
"core_type":["6-K","20-F/A","6-K","20-F/A","20-F","6-K","20-F/A","20-F"],
"size":[182233,96120,1402880,233410,9120331,170021,88412,8877012],
"isXBRL":[0,0,1,1,1,0,0,1],
"isInlineXBRL":[0,0,1,1,1,0,0,1],
"primaryDocument":["xamd-6k_20251001.htm","xamd-20fa2_2024.htm","xamd-6k_h12025.htm","xamd-20fa1_2024.htm","xamd-20f_2024.htm","xamd-6k_20241002.htm","xamd-20fa_2023.htm","xamd-20f_2023.htm"],
"primaryDocDescription":["6-K","20-F/A","6-K","20-F/A","20-F","6-K","20-F/A","20-F"]},
"files":[]}}`
