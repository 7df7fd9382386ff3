package finance

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// Value is one fundamental with where it comes from. Value is null when the
// filer did not report it for the fiscal year.
type Value struct {
	Value *float64 `json:"value"`
	// Concept is the XBRL concept read, "us-gaap:Revenues"; empty for a
	// derived value.
	Concept     string `json:"concept,omitempty"`
	Unit        string `json:"unit,omitempty"`
	PeriodStart string `json:"period_start,omitempty"`
	PeriodEnd   string `json:"period_end,omitempty"`
	Form        string `json:"form,omitempty"`
	Accession   string `json:"accession,omitempty"`
	Filed       string `json:"filed,omitempty"`
	// Derived is the formula of a value computed from others.
	Derived string `json:"derived,omitempty"`
	// Restated is set when a later filing reported a different value for
	// the same period; the latest filing wins and the first value is kept
	// in Original.
	Restated bool      `json:"restated,omitempty"`
	Original *Original `json:"original,omitempty"`
}

// Original is the value a restatement replaced.
type Original struct {
	Value     float64 `json:"value"`
	Form      string  `json:"form"`
	Accession string  `json:"accession"`
	Filed     string  `json:"filed"`
}

// Fundamentals are the figures of the latest annual report.
type Fundamentals struct {
	// Standard is the taxonomy read: us-gaap or ifrs-full.
	Standard string `json:"standard"`
	Currency string `json:"currency"`
	// FiscalYear is the fiscal year EDGAR assigns the annual report.
	FiscalYear      int       `json:"fiscal_year"`
	FiscalYearStart string    `json:"fiscal_year_start,omitempty"`
	FiscalYearEnd   string    `json:"fiscal_year_end"`
	Filing          FilingRef `json:"filing"`
	// Amendments are the other annual filings of the fiscal year (10-K/A,
	// 20-F/A, ...), with figures or without (see withFilings).
	Amendments []FilingRef `json:"amendments"`

	Revenue            Value `json:"revenue"`
	GrossProfit        Value `json:"gross_profit"`
	OperatingIncome    Value `json:"operating_income"`
	NetIncome          Value `json:"net_income"`
	EPSBasic           Value `json:"eps_basic"`
	EPSDiluted         Value `json:"eps_diluted"`
	TotalAssets        Value `json:"total_assets"`
	TotalLiabilities   Value `json:"total_liabilities"`
	TotalEquity        Value `json:"total_equity"`
	Cash               Value `json:"cash"`
	Debt               Value `json:"debt"`
	CurrentAssets      Value `json:"current_assets"`
	CurrentLiabilities Value `json:"current_liabilities"`
	OperatingCashFlow  Value `json:"operating_cash_flow"`
	CapitalExpenditure Value `json:"capital_expenditure"`
	FreeCashFlow       Value `json:"free_cash_flow"`
	SharesOutstanding  Value `json:"shares_outstanding"`
}

// FilingRef names a filing.
type FilingRef struct {
	Form      string `json:"form"`
	Accession string `json:"accession"`
	Filed     string `json:"filed"`
	URL       string `json:"url,omitempty"`
}

// errNoAnnual: the filer has no annual report with XBRL figures.
var errNoAnnual = errors.New("no annual report with XBRL financial data")

// fact is an edgar.Fact with the concept and unit it was found under.
type fact struct {
	edgar.Fact
	concept, unit string
}

// fundamentals reads the latest annual report out of a companyfacts file.
// The fiscal year is the latest year-long period an annual form reported;
// each figure for it is taken from the latest annual filing that reported
// it, so restatements (a 10-K/A) and duplicates (the same fact in two
// filings) resolve to one value.
func fundamentals(cf *edgar.CompanyFacts) (*Fundamentals, error) {
	tax, fyEnd := pickStandard(cf)
	if tax == "" {
		return nil, errNoAnnual
	}
	x := &extractor{cf: cf, tax: tax, fyEnd: fyEnd}
	x.currency = x.findCurrency()
	f := &Fundamentals{Standard: tax, Currency: x.currency, FiscalYearEnd: fyEnd.Format(time.DateOnly), Amendments: []FilingRef{}}
	vals := map[string]*Value{
		mRevenue: &f.Revenue, mGrossProfit: &f.GrossProfit, mOperatingIncome: &f.OperatingIncome,
		mNetIncome: &f.NetIncome, mEPSBasic: &f.EPSBasic, mEPSDiluted: &f.EPSDiluted,
		mTotalAssets: &f.TotalAssets, mTotalLiabilities: &f.TotalLiabilities, mTotalEquity: &f.TotalEquity,
		mCash: &f.Cash, mDebt: &f.Debt, mCurrentAssets: &f.CurrentAssets, mCurrentLiabilities: &f.CurrentLiabilities,
		mOperatingCashFlow: &f.OperatingCashFlow, mCapex: &f.CapitalExpenditure, mSharesOutstanding: &f.SharesOutstanding,
	}
	for _, m := range metrics {
		*vals[m.key] = x.metric(m)
	}
	if f.TotalLiabilities.Value == nil {
		f.TotalLiabilities = x.derivedLiabilities(f.TotalEquity)
	}
	f.FreeCashFlow = difference(f.OperatingCashFlow, f.CapitalExpenditure, "operating_cash_flow - capital_expenditure")
	if v := x.coverShares(); v.Value != nil {
		f.SharesOutstanding = v
	}
	x.filings(f, vals)
	return f, nil
}

type extractor struct {
	cf       *edgar.CompanyFacts
	tax      string
	fyEnd    time.Time
	currency string
}

// pickStandard chooses the taxonomy with the latest fiscal year (us-gaap
// on a tie) and returns that year's end; "" when neither has an annual
// report.
func pickStandard(cf *edgar.CompanyFacts) (string, time.Time) {
	var best string
	var bestEnd time.Time
	for _, tax := range []string{taxGAAP, taxIFRS} {
		if end, ok := latestYearEnd(cf.Facts[tax]); ok && end.After(bestEnd) {
			best, bestEnd = tax, end
		}
	}
	return best, bestEnd
}

// latestYearEnd is the end of the latest year-long period reported in an
// annual form. Only durations count: instants on a 10-K's cover page
// (shares outstanding at the filing date) come after the year end.
func latestYearEnd(concepts map[string]*edgar.Concept) (time.Time, bool) {
	var best time.Time
	for _, c := range concepts {
		for _, facts := range c.Units {
			for _, ft := range facts {
				if !annualForms[ft.Form] || ft.Start == "" {
					continue
				}
				if end, ok := yearLong(ft); ok && end.After(best) {
					best = end
				}
			}
		}
	}
	return best, !best.IsZero()
}

// yearLong reports whether a duration fact spans a fiscal year (52 or 53
// weeks, or a calendar year), and returns its end.
func yearLong(ft edgar.Fact) (time.Time, bool) {
	s, err1 := time.Parse(time.DateOnly, ft.Start)
	e, err2 := time.Parse(time.DateOnly, ft.End)
	if err1 != nil || err2 != nil {
		return time.Time{}, false
	}
	days := e.Sub(s).Hours() / 24
	return e, days >= 340 && days <= 400
}

// candidates are the annual-form facts of concept for the fiscal year in
// unit.
func (x *extractor) candidates(tax, concept, unit string, k kind) []fact {
	c := x.cf.Facts[tax][concept]
	if c == nil {
		return nil
	}
	var out []fact
	for _, ft := range c.Units[unit] {
		if !annualForms[ft.Form] || !x.inYear(ft, k) {
			continue
		}
		out = append(out, fact{Fact: ft, concept: tax + ":" + concept, unit: unit})
	}
	return out
}

func (x *extractor) inYear(ft edgar.Fact, k kind) bool {
	if ft.End != x.fyEnd.Format(time.DateOnly) {
		return false
	}
	if k == instant {
		return ft.Start == ""
	}
	_, ok := yearLong(ft)
	return ok
}

// unitFor is the unit a metric's facts are read in.
func (x *extractor) unitFor(u unitKind) string {
	switch u {
	case perShare:
		return x.currency + "/shares"
	case shares:
		return "shares"
	}
	return x.currency
}

// findCurrency is the currency most of the year's money facts are
// reported in (a filer reports its statements in one currency; a few
// convenience translations carry another unit and must not win).
func (x *extractor) findCurrency() string {
	count := map[string]int{}
	for _, m := range metrics {
		if m.unit != money {
			continue
		}
		for _, concept := range x.concepts(m) {
			c := x.cf.Facts[x.tax][concept]
			if c == nil {
				continue
			}
			for unit, facts := range c.Units {
				if !isCurrency(unit) {
					continue
				}
				for _, ft := range facts {
					if annualForms[ft.Form] && x.inYear(ft, m.kind) {
						count[unit]++
					}
				}
			}
		}
	}
	best := "USD"
	for unit, n := range count {
		if n > count[best] || (n == count[best] && unit < best) {
			best = unit
		}
	}
	return best
}

func isCurrency(unit string) bool {
	if len(unit) != 3 {
		return false
	}
	for _, r := range unit {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func (x *extractor) concepts(m metric) []string {
	if x.tax == taxIFRS {
		return m.ifrs
	}
	return m.gaap
}

// metric reads m from the first of its concepts reported for the year.
func (x *extractor) metric(m metric) Value {
	for _, concept := range x.concepts(m) {
		if v, ok := x.pick(x.candidates(x.tax, concept, x.unitFor(m.unit), m.kind)); ok {
			return v
		}
	}
	return Value{}
}

// pick resolves duplicates and restatements: the fact of the latest filing
// wins (the later accession on the same day); the earliest filing's value
// is kept as the original when it differs.
func (x *extractor) pick(cands []fact) (Value, bool) {
	if len(cands) == 0 {
		return Value{}, false
	}
	latest, first := cands[0], cands[0]
	for _, c := range cands[1:] {
		if c.Filed > latest.Filed || (c.Filed == latest.Filed && c.Accn > latest.Accn) {
			latest = c
		}
		if c.Filed < first.Filed || (c.Filed == first.Filed && c.Accn < first.Accn) {
			first = c
		}
	}
	v := valueOf(latest)
	if first.Val != latest.Val {
		v.Restated = true
		v.Original = &Original{Value: first.Val, Form: first.Form, Accession: first.Accn, Filed: first.Filed}
	}
	return v, true
}

func valueOf(f fact) Value {
	val := f.Val
	return Value{Value: &val, Concept: f.concept, Unit: f.unit, PeriodStart: f.Start, PeriodEnd: f.End,
		Form: f.Form, Accession: f.Accn, Filed: f.Filed}
}

// derivedLiabilities is total liabilities for filers that do not tag them:
// liabilities and equity less total equity (non-controlling interests
// included, as the balance sheet total includes them).
func (x *extractor) derivedLiabilities(equity Value) Value {
	total, eq := gaapLiabilitiesAndEquity, gaapEquityWithNCI
	if x.tax == taxIFRS {
		total, eq = ifrsEquityAndLiabilities, ifrsEquityWithNCI
	}
	t, ok := x.pick(x.candidates(x.tax, total, x.currency, instant))
	if !ok {
		return Value{}
	}
	e, ok := x.pick(x.candidates(x.tax, eq, x.currency, instant))
	if !ok {
		e = equity
	}
	return difference(t, e, strings.TrimPrefix(t.Concept, x.tax+":")+" - "+strings.TrimPrefix(e.Concept, x.tax+":"))
}

// coverShares is the share count on the annual report's cover page
// (dei:EntityCommonStockSharesOutstanding, as of a date after the year
// end), which is more recent than the balance-sheet count.
func (x *extractor) coverShares() Value {
	c := x.cf.Facts[taxDEI][deiSharesOutstanding]
	if c == nil {
		return Value{}
	}
	var best *edgar.Fact
	for i, ft := range c.Units["shares"] {
		if !annualForms[ft.Form] || ft.End < x.fyEnd.Format(time.DateOnly) {
			continue
		}
		if best == nil || ft.Filed > best.Filed || (ft.Filed == best.Filed && ft.End > best.End) {
			best = &c.Units["shares"][i]
		}
	}
	if best == nil {
		return Value{}
	}
	return valueOf(fact{Fact: *best, concept: taxDEI + ":" + deiSharesOutstanding, unit: "shares"})
}

// difference is a - b with a's period and unit, or an empty value when
// either is missing or their units differ.
func difference(a, b Value, formula string) Value {
	if a.Value == nil || b.Value == nil || a.Unit != b.Unit {
		return Value{}
	}
	d := *a.Value - *b.Value
	return Value{Value: &d, Unit: a.Unit, PeriodStart: a.PeriodStart, PeriodEnd: a.PeriodEnd, Derived: formula}
}

// filings fills the fiscal year, the original annual filing and its
// amendments from every fact read for the year and every filing a value
// cites (the cover page's share count is read from its own date).
func (x *extractor) filings(f *Fundamentals, vals map[string]*Value) {
	type filing struct {
		FilingRef
		fy int
	}
	seen := map[string]filing{}
	var start string
	for _, m := range metrics {
		for _, concept := range x.concepts(m) {
			for _, c := range x.candidates(x.tax, concept, x.unitFor(m.unit), m.kind) {
				if _, ok := seen[c.Accn]; !ok {
					seen[c.Accn] = filing{FilingRef{Form: c.Form, Accession: c.Accn, Filed: c.Filed}, c.FY}
				}
				if c.Start != "" && (start == "" || c.Start > start) {
					start = c.Start
				}
			}
		}
	}
	for _, v := range vals {
		if _, ok := seen[v.Accession]; !ok && v.Accession != "" {
			seen[v.Accession] = filing{FilingRef: FilingRef{Form: v.Form, Accession: v.Accession, Filed: v.Filed}}
		}
	}
	var orig *filing
	for _, fl := range seen {
		if orig == nil || fl.Filed < orig.Filed || (fl.Filed == orig.Filed && fl.Accession < orig.Accession) {
			fl := fl
			orig = &fl
		}
	}
	if orig == nil {
		return
	}
	f.Filing, f.FiscalYear, f.FiscalYearStart = orig.FilingRef, orig.fy, start
	for _, fl := range seen {
		if fl.Accession != orig.Accession {
			f.Amendments = append(f.Amendments, fl.FilingRef)
		}
	}
	sortFilings(f.Amendments)
}

// round4 rounds a ratio for display.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
