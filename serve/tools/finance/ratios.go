package finance

import (
	"slices"
	"strings"
)

// Ratio is a ratio of two fundamentals with its formula. Value is null when
// an input is missing, the units differ or the denominator is not
// positive; Note says which.
type Ratio struct {
	Value   *float64 `json:"value"`
	Formula string   `json:"formula"`
	Note    string   `json:"note,omitempty"`
}

// Ratios are computed from the fundamentals of the same fiscal year.
// Balance-sheet inputs are year-end values, not averages.
type Ratios struct {
	GrossMargin        Ratio `json:"gross_margin"`
	OperatingMargin    Ratio `json:"operating_margin"`
	NetMargin          Ratio `json:"net_margin"`
	FreeCashFlowMargin Ratio `json:"free_cash_flow_margin"`
	ReturnOnEquity     Ratio `json:"return_on_equity"`
	ReturnOnAssets     Ratio `json:"return_on_assets"`
	DebtToEquity       Ratio `json:"debt_to_equity"`
	CurrentRatio       Ratio `json:"current_ratio"`
}

func ratios(f *Fundamentals) Ratios {
	return Ratios{
		GrossMargin:        ratio(f.GrossProfit, f.Revenue, "gross_profit / revenue"),
		OperatingMargin:    ratio(f.OperatingIncome, f.Revenue, "operating_income / revenue"),
		NetMargin:          ratio(f.NetIncome, f.Revenue, "net_income / revenue"),
		FreeCashFlowMargin: ratio(f.FreeCashFlow, f.Revenue, "free_cash_flow / revenue"),
		ReturnOnEquity:     ratio(f.NetIncome, f.TotalEquity, "net_income / total_equity (year end)"),
		ReturnOnAssets:     ratio(f.NetIncome, f.TotalAssets, "net_income / total_assets (year end)"),
		DebtToEquity:       ratio(f.Debt, f.TotalEquity, "debt / total_equity"),
		CurrentRatio:       ratio(f.CurrentAssets, f.CurrentLiabilities, "current_assets / current_liabilities"),
	}
}

func ratio(num, den Value, formula string) Ratio {
	r := Ratio{Formula: formula}
	names := strings.Fields(strings.NewReplacer("/", " ", "(year end)", "").Replace(formula))
	switch {
	case num.Value == nil:
		r.Note = names[0] + " not reported"
	case den.Value == nil:
		r.Note = names[1] + " not reported"
	case num.Unit != den.Unit:
		r.Note = "units differ (" + num.Unit + ", " + den.Unit + ")"
	case *den.Value <= 0:
		r.Note = names[1] + " is zero or negative"
	default:
		v := round4(*num.Value / *den.Value)
		r.Value = &v
	}
	return r
}

// sortFilings orders filings oldest first.
func sortFilings(fs []FilingRef) {
	slices.SortFunc(fs, func(a, b FilingRef) int {
		if c := strings.Compare(a.Filed, b.Filed); c != 0 {
			return c
		}
		return strings.Compare(a.Accession, b.Accession)
	})
}
