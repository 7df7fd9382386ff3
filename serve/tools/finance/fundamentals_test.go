package finance

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// readFacts decodes a companyfacts body the way the client does (only the
// concepts the tools read).
func readFacts(t testing.TB, body []byte) *edgar.CompanyFacts {
	t.Helper()
	cf, err := edgar.DecodeCompanyFacts(body, keepConcept)
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

func fixtureFacts(t testing.TB, name string) *edgar.CompanyFacts {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "upstreams", "sec-edgar", name))
	if err != nil {
		t.Fatal(err)
	}
	return readFacts(t, b)
}

// want is an expected fundamental: value, concept (or derived formula),
// form and accession.
type want struct {
	val              float64
	concept, form    string
	accn             string
	restatedFrom     float64 // 0: not restated
	derived, periodS string
}

func TestFundamentals(t *testing.T) {
	tests := []struct {
		name                string
		facts               func(testing.TB) *edgar.CompanyFacts
		standard, currency  string
		fy                  int
		fyEnd, filing, form string
		amendments          int
		values              map[string]want
		nullValues          []string
		ratios              map[string]float64
	}{
		{
			// A large US GAAP filer (real, trimmed to 11 concepts): Revenues
			// stops in 2018, so revenue falls back to ASC 606's concept; the
			// 10-K also tags the fourth quarter with fp FY, which must not be
			// taken for the year.
			name: "apple",
			facts: func(t testing.TB) *edgar.CompanyFacts {
				return fixtureFacts(t, "companyfacts_CIK0000320193.trimmed.json")
			},
			standard: "us-gaap", currency: "USD", fy: 2025, fyEnd: "2025-09-27", filing: "0000320193-25-000079", form: "10-K",
			values: map[string]want{
				"revenue":            {val: 416161000000, concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", form: "10-K", accn: "0000320193-25-000079", periodS: "2024-09-29"},
				"net_income":         {val: 112010000000, concept: "us-gaap:NetIncomeLoss", form: "10-K", accn: "0000320193-25-000079"},
				"eps_basic":          {val: 7.49, concept: "us-gaap:EarningsPerShareBasic", form: "10-K", accn: "0000320193-25-000079"},
				"eps_diluted":        {val: 7.46, concept: "us-gaap:EarningsPerShareDiluted", form: "10-K", accn: "0000320193-25-000079"},
				"total_assets":       {val: 359241000000, concept: "us-gaap:Assets", form: "10-K", accn: "0000320193-25-000079"},
				"total_liabilities":  {val: 285508000000, concept: "us-gaap:Liabilities", form: "10-K", accn: "0000320193-25-000079"},
				"total_equity":       {val: 73733000000, concept: "us-gaap:StockholdersEquity", form: "10-K", accn: "0000320193-25-000079"},
				"shares_outstanding": {val: 14776353000, concept: "dei:EntityCommonStockSharesOutstanding", form: "10-K", accn: "0000320193-25-000079"},
			},
			nullValues: []string{"gross_profit", "operating_income", "cash", "debt", "free_cash_flow"},
			ratios:     map[string]float64{"net_margin": 0.2692, "return_on_equity": 1.5191, "return_on_assets": 0.3118},
		},
		{
			// Real, untrimmed (1.28 MB). Its proxy statement (DEF 14A) repeats
			// net income for the same year, later than the 10-K.
			name:     "marvell",
			facts:    func(t testing.TB) *edgar.CompanyFacts { return fixtureFacts(t, "companyfacts_CIK0001835632.json") },
			standard: "us-gaap", currency: "USD", fy: 2026, fyEnd: "2026-01-31", filing: "0001835632-26-000011", form: "10-K",
			values: map[string]want{
				"revenue":             {val: 8194600000, concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", form: "10-K", accn: "0001835632-26-000011"},
				"gross_profit":        {val: 4180700000, concept: "us-gaap:GrossProfit", form: "10-K", accn: "0001835632-26-000011"},
				"operating_income":    {val: 1322900000, concept: "us-gaap:OperatingIncomeLoss", form: "10-K", accn: "0001835632-26-000011"},
				"net_income":          {val: 2670100000, concept: "us-gaap:NetIncomeLoss", form: "10-K", accn: "0001835632-26-000011"},
				"debt":                {val: 4470600000, concept: "us-gaap:LongTermDebt", form: "10-K", accn: "0001835632-26-000011"},
				"cash":                {val: 2638800000, concept: "us-gaap:CashAndCashEquivalentsAtCarryingValue", form: "10-K", accn: "0001835632-26-000011"},
				"operating_cash_flow": {val: 1750500000, concept: "us-gaap:NetCashProvidedByUsedInOperatingActivities", form: "10-K", accn: "0001835632-26-000011"},
				"capital_expenditure": {val: 354100000, concept: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", form: "10-K", accn: "0001835632-26-000011"},
				"free_cash_flow":      {val: 1396400000, derived: "operating_cash_flow - capital_expenditure"},
				"shares_outstanding":  {val: 874300000, concept: "dei:EntityCommonStockSharesOutstanding", form: "10-K", accn: "0001835632-26-000011"},
			},
			ratios: map[string]float64{"gross_margin": 0.5102, "operating_margin": 0.1614, "debt_to_equity": 0.3124, "current_ratio": 2.0061},
		},
		{
			name:     "foreign private issuer (IFRS, 20-F)",
			facts:    func(t testing.TB) *edgar.CompanyFacts { return readFacts(t, []byte(SampleIFRSFacts)) },
			standard: "ifrs-full", currency: "EUR", fy: 2024, fyEnd: "2024-12-31", filing: "0009900001-25-000006", form: "20-F",
			values: map[string]want{
				"revenue":             {val: 30400000000, concept: "ifrs-full:Revenue", form: "20-F", accn: "0009900001-25-000006"},
				"operating_income":    {val: 6100000000, concept: "ifrs-full:ProfitLossFromOperatingActivities", form: "20-F", accn: "0009900001-25-000006"},
				"net_income":          {val: 3150000000, concept: "ifrs-full:ProfitLossAttributableToOwnersOfParent", form: "20-F", accn: "0009900001-25-000006"},
				"eps_diluted":         {val: 7.81, concept: "ifrs-full:DilutedEarningsLossPerShare", form: "20-F", accn: "0009900001-25-000006"},
				"total_equity":        {val: 42800000000, concept: "ifrs-full:EquityAttributableToOwnersOfParent", form: "20-F", accn: "0009900001-25-000006"},
				"debt":                {val: 7700000000, concept: "ifrs-full:Borrowings", form: "20-F", accn: "0009900001-25-000006"},
				"capital_expenditure": {val: 900000000, concept: "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities", form: "20-F", accn: "0009900001-25-000006"},
				"free_cash_flow":      {val: 4300000000, derived: "operating_cash_flow - capital_expenditure"},
				"shares_outstanding":  {val: 398500000, concept: "dei:EntityCommonStockSharesOutstanding", form: "20-F", accn: "0009900001-25-000006"},
			},
			ratios: map[string]float64{"current_ratio": 1.5, "gross_margin": 0.7303},
		},
		{
			// The 20-F/A corrected only the cover page: the share count cites
			// it, so it is an amendment of the year.
			name:     "20-F amended by a cover-page 20-F/A",
			facts:    func(t testing.TB) *edgar.CompanyFacts { return readFacts(t, []byte(SampleAmendedFacts)) },
			standard: "ifrs-full", currency: "USD", fy: 2024, fyEnd: "2024-12-31", filing: "0009900004-25-000012", form: "20-F", amendments: 1,
			values: map[string]want{
				"revenue":            {val: 4550000000, concept: "ifrs-full:Revenue", form: "20-F", accn: "0009900004-25-000012"},
				"shares_outstanding": {val: 251300000, concept: "dei:EntityCommonStockSharesOutstanding", form: "20-F/A", accn: "0009900004-25-000031"},
			},
		},
		{
			name:     "restatement (10-K/A)",
			facts:    func(t testing.TB) *edgar.CompanyFacts { return readFacts(t, []byte(SampleRestatedFacts)) },
			standard: "us-gaap", currency: "USD", fy: 2024, fyEnd: "2024-12-31", filing: "0009900002-25-000010", form: "10-K", amendments: 1,
			values: map[string]want{
				"revenue":           {val: 950000000, concept: "us-gaap:Revenues", form: "10-K/A", accn: "0009900002-25-000031", restatedFrom: 1000000000},
				"net_income":        {val: 95000000, concept: "us-gaap:NetIncomeLoss", form: "10-K/A", accn: "0009900002-25-000031", restatedFrom: 120000000},
				"eps_basic":         {val: 0.95, concept: "us-gaap:EarningsPerShareBasic", form: "10-K/A", accn: "0009900002-25-000031", restatedFrom: 1.2},
				"total_assets":      {val: 2000000000, concept: "us-gaap:Assets", form: "10-K/A", accn: "0009900002-25-000031"},
				"total_equity":      {val: 775000000, concept: "us-gaap:StockholdersEquity", form: "10-K/A", accn: "0009900002-25-000031", restatedFrom: 800000000},
				"total_liabilities": {val: 1225000000, derived: "LiabilitiesAndStockholdersEquity - StockholdersEquity"},
			},
			ratios: map[string]float64{"net_margin": 0.1, "return_on_equity": 0.1226},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := fundamentals(tc.facts(t))
			if err != nil {
				t.Fatal(err)
			}
			if f.Standard != tc.standard || f.Currency != tc.currency || f.FiscalYear != tc.fy || f.FiscalYearEnd != tc.fyEnd {
				t.Errorf("standard %q currency %q fy %d end %q", f.Standard, f.Currency, f.FiscalYear, f.FiscalYearEnd)
			}
			if f.Filing.Accession != tc.filing || f.Filing.Form != tc.form || len(f.Amendments) != tc.amendments {
				t.Errorf("filing %+v amendments %+v", f.Filing, f.Amendments)
			}
			got := asMap(t, f)
			for key, w := range tc.values {
				v := got[key]
				if v.Value == nil || *v.Value != w.val {
					t.Errorf("%s = %v, want %v (%+v)", key, deref(v.Value), w.val, v)
					continue
				}
				if w.derived != "" {
					if v.Derived != w.derived || v.Concept != "" {
						t.Errorf("%s derived %q concept %q, want %q", key, v.Derived, v.Concept, w.derived)
					}
					continue
				}
				if v.Concept != w.concept || v.Form != w.form || v.Accession != w.accn || v.PeriodEnd == "" || v.Unit == "" {
					t.Errorf("%s source %+v, want %s %s %s", key, v, w.concept, w.form, w.accn)
				}
				if w.periodS != "" && v.PeriodStart != w.periodS {
					t.Errorf("%s period start %q, want %q", key, v.PeriodStart, w.periodS)
				}
				switch {
				case w.restatedFrom == 0 && (v.Restated || v.Original != nil):
					t.Errorf("%s marked restated: %+v", key, v.Original)
				case w.restatedFrom != 0 && (!v.Restated || v.Original == nil || v.Original.Value != w.restatedFrom):
					t.Errorf("%s restated %v original %+v, want from %v", key, v.Restated, v.Original, w.restatedFrom)
				}
			}
			for _, key := range tc.nullValues {
				if got[key].Value != nil {
					t.Errorf("%s = %v, want null", key, *got[key].Value)
				}
			}
			r := ratios(f)
			rb, _ := json.Marshal(r)
			var rm map[string]Ratio
			json.Unmarshal(rb, &rm)
			for key, w := range tc.ratios {
				if rm[key].Value == nil || *rm[key].Value != w || rm[key].Formula == "" {
					t.Errorf("ratio %s = %+v, want %v", key, rm[key], w)
				}
			}
		})
	}
}

func TestFundamentalsNoAnnualReport(t *testing.T) {
	// Only a quarterly report: no fiscal year to read (documented format,
	// hand-written).
	body := `{"cik":9900003,"entityName":"QUARTERLY ONLY INC","facts":{"us-gaap":{"Revenues":{"label":"Revenues","description":"","units":{"USD":[
{"start":"2025-01-01","end":"2025-03-31","val":5000000,"accn":"0009900003-25-000002","fy":2025,"fp":"Q1","form":"10-Q","filed":"2025-05-10","frame":"CY2025Q1"}]}}}}}`
	if _, err := fundamentals(readFacts(t, []byte(body))); err != errNoAnnual {
		t.Fatalf("err = %v, want errNoAnnual", err)
	}
}

func TestRatioNotes(t *testing.T) {
	v := func(x float64, unit string) Value { return Value{Value: &x, Unit: unit} }
	tests := []struct {
		num, den Value
		want     *float64
		note     string
	}{
		{v(1, "USD"), v(4, "USD"), ptr(0.25), ""},
		{Value{}, v(4, "USD"), nil, "a not reported"},
		{v(1, "USD"), Value{}, nil, "b not reported"},
		{v(1, "USD"), v(-4, "USD"), nil, "b is zero or negative"},
		{v(1, "USD"), v(4, "EUR"), nil, "units differ (USD, EUR)"},
	}
	for _, tc := range tests {
		r := ratio(tc.num, tc.den, "a / b")
		if deref(r.Value) != deref(tc.want) || (r.Value == nil) != (tc.want == nil) || r.Note != tc.note {
			t.Errorf("ratio(%v, %v) = %v %q, want %v %q", deref(tc.num.Value), deref(tc.den.Value), deref(r.Value), r.Note, deref(tc.want), tc.note)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// asMap is f's fundamentals by JSON name.
func asMap(t *testing.T, f *Fundamentals) map[string]Value {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	out := map[string]Value{}
	for k, raw := range m {
		var v Value
		if json.Unmarshal(raw, &v) == nil {
			out[k] = v
		}
	}
	return out
}
