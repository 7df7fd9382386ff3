package tokenreport

import (
	"context"
	"fmt"

	"github.com/openshelf/openshelf/serve/tools/crypto/internal/sell"
	"github.com/openshelf/openshelf/serve/tools/crypto/tokenaudit"
)

// Output is the answer of token_report: the audit, two simulated sales, a
// 0–100 score with every deduction, and a verdict.
type Output struct {
	tokenaudit.Output
	Score      int         `json:"score"`
	Verdict    string      `json:"verdict"` // low-risk, caution, high-risk, avoid
	Deductions []Deduction `json:"deductions"`
	SellTests  []sell.Test `json:"sell_tests"`
}

// Deduction is one flag's cost to the score.
type Deduction struct {
	Flag     string `json:"flag"`
	Severity string `json:"severity"`
	Points   int    `json:"points"`
	Reason   string `json:"reason"`
}

// Points per severity; a critical flag (cannot be sold) takes everything.
var severityPoints = map[string]int{"critical": 100, "high": 25, "medium": 10, "low": 3}

// reportSellUSD are the simulated sale sizes.
var reportSellUSD = []float64{100, 1000}

func (t *Tools) tokenReport(ctx context.Context, in *Input) (*Output, error) {
	out := &Output{Deductions: []Deduction{}, SellTests: []sell.Test{}}
	if in.Chain == "solana" {
		// Solana sales are quotes from the pools' state, not simulations.
		au, err := t.audit.Solana(ctx, in)
		if err != nil {
			return nil, err
		}
		out.Output = *au
		out.SellTests = t.solanaSells(ctx, in.Address)
	} else {
		a, err := t.audit.Run(ctx, in, 0)
		if err != nil {
			return nil, err
		}
		out.SellTests = append(out.SellTests, a.Sell(ctx, reportSellUSD)...)
		a.Finish()
		out.Output = *a.Out
	}
	out.Score = 100
	for _, f := range out.Flags {
		p := severityPoints[f.Severity]
		if p == 0 {
			continue
		}
		out.Deductions = append(out.Deductions, Deduction{Flag: f.ID, Severity: f.Severity, Points: p,
			Reason: fmt.Sprintf("%s: %s", f.Title, f.Detail)})
		out.Score -= p
	}
	out.Score = max(0, out.Score)
	out.Verdict = verdict(out.Score, out.RiskLevel)
	return out, nil
}

// verdict: ≥ 80 low-risk, ≥ 60 caution, ≥ 35 high-risk, else avoid; a
// token that cannot be sold is always avoid.
func verdict(score int, risk string) string {
	switch {
	case risk == "critical" || score < 35:
		return "avoid"
	case score < 60:
		return "high-risk"
	case score < 80:
		return "caution"
	}
	return "low-risk"
}
