// Package finance holds the company tools, built on SEC EDGAR's free XBRL
// data (U.S. government public data):
//
//   - finance_snapshot (GET /v1/finance): fundamentals of a company's latest
//     annual report (10-K, 20-F or 40-F, with amendments), each with its
//     XBRL concept, period, unit, form and accession number, and ratios
//     computed from them with their formulas. P/E and market cap need a
//     market price, which EDGAR does not have: they are present and null.
//   - company_snapshot (GET /v1/company-snapshot): the same fundamentals
//     plus the EDGAR profile (SIC, state of incorporation, fiscal year end,
//     addresses, former names, listings), the ten most recent filings with
//     links, and the health of the company's website, checked in process
//     with the ping_status and domain_intel code of package web (website.go
//     is the only file that uses it), so the caller pays once. The website
//     EDGAR records is requested as recorded (scheme, host, port) through
//     the guarded client; a refused target is an error of the check, and
//     "no website" is said only when EDGAR records none.
//
// Reading XBRL facts: the fiscal year is the latest year-long period an
// annual form reported; each figure for it comes from the latest annual
// filing that reported it, so duplicated facts and restatements (a later
// 10-K/A) resolve to one value, and a restated value keeps the original
// beside it. The year's amendments are every annual form the company's
// filing list (its submissions file) dates to the fiscal year end, with any
// other filing a figure cites (filings.go): an amendment that changed no
// figure carries no facts. Each figure tries a list of concepts
// (concepts.go): revenue is Revenues, then
// RevenueFromContractWithCustomerExcludingAssessedTax, then
// ...IncludingAssessedTax, SalesRevenueNet, SalesRevenueGoodsNet and
// RevenuesNetOfInterestExpense (banks). IFRS filers (20-F) are read from the
// ifrs-full taxonomy in their reporting currency. Total liabilities are
// derived from liabilities-and-equity minus equity when not tagged; free
// cash flow is operating cash flow minus capital expenditure; debt is
// long-term debt including current maturities where the filer tags that
// (LongTermDebt), else the non-current part only.
//
// The ticker is resolved before payment, so an unknown ticker is a 404
// nobody pays for. EDGAR failures (after the client's retries) are
// 502/503/504 and, like every handler error, are not charged. All EDGAR
// traffic goes through one edgar.Client per process: rate limit, retries,
// cache (see package edgar).
package finance
