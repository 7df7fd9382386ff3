package tokenaudit

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

// checkSolanaToken refuses, before payment, an address that is not a mint.
func (t *Tools) checkSolanaToken(ctx context.Context, in *Input) error {
	_, err := t.solanaMint(ctx, in.Address)
	return err
}

type solMint struct {
	Program string
	Info    struct {
		Decimals        uint8   `json:"decimals"`
		Supply          string  `json:"supply"`
		MintAuthority   *string `json:"mintAuthority"`
		FreezeAuthority *string `json:"freezeAuthority"`
		Extensions      []struct {
			Extension string          `json:"extension"`
			State     json.RawMessage `json:"state"`
		} `json:"extensions"`
	}
}

// solanaMint reads the mint account (getAccountInfo, jsonParsed; cached a
// minute so the check and the handler share it).
func (t *Tools) solanaMint(ctx context.Context, addr string) (*solMint, error) {
	if t.sol == nil {
		return nil, apierr.New(apierr.ErrUnavailable, "chain_not_configured", "solana has no RPC endpoint configured")
	}
	if v, ok := t.sol.Cache.Get("mint:" + addr); ok {
		return v.(*solMint), nil
	}
	var r struct {
		Value *struct {
			Owner string `json:"owner"`
			Data  struct {
				Program string `json:"program"`
				Parsed  struct {
					Type string          `json:"type"`
					Info json.RawMessage `json:"info"`
				} `json:"parsed"`
			} `json:"data"`
		} `json:"value"`
	}
	if err := t.sol.Call(ctx, &r, "getAccountInfo", addr, map[string]string{"encoding": "jsonParsed"}); err != nil {
		return nil, chain.SolanaErr(err)
	}
	if r.Value == nil || r.Value.Data.Parsed.Type != "mint" {
		return nil, apierr.NotFound("token_not_found", addr+" is not an SPL token mint")
	}
	m := &solMint{Program: r.Value.Owner}
	if err := json.Unmarshal(r.Value.Data.Parsed.Info, &m.Info); err != nil {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", "solana: the mint does not decode")
	}
	t.sol.Cache.Put("mint:"+addr, m, time.Minute)
	return m, nil
}

// Solana audits a Solana mint: it flags the mint's authorities and
// Token-2022 extensions, and measures holder concentration from
// getTokenLargestAccounts. No sale is simulated on Solana.
func (t *Tools) Solana(ctx context.Context, in *Input) (*Output, error) {
	m, err := t.solanaMint(ctx, in.Address)
	if err != nil {
		return nil, err
	}
	out := &Output{Chain: "solana", Address: in.Address, Flags: []Flag{}, CheckedAt: t.cfg.Now().UTC(),
		Token: token.Summary{Decimals: m.Info.Decimals, TotalSupply: m.Info.Supply}}
	a := &Audit{Out: out}
	if m.Info.MintAuthority != nil {
		a.flag("mint", "high", "Supply can be increased", "The mint authority "+*m.Info.MintAuthority+" can mint new tokens.")
	} else {
		a.flag("mint_disabled", "info", "Supply is fixed", "The mint has no mint authority.")
	}
	if m.Info.FreezeAuthority != nil {
		a.flag("freeze", "high", "Holders can be frozen", "The freeze authority "+*m.Info.FreezeAuthority+" can freeze any holder's token account.")
	}
	for _, e := range m.Info.Extensions {
		switch e.Extension {
		case "transferFeeConfig":
			a.flag("fee_setter", "medium", "Transfer fee", "Token-2022 transferFeeConfig: transfers pay a fee its authority can change.")
		case "permanentDelegate":
			a.flag("permanent_delegate", "critical", "Tokens can be taken", "Token-2022 permanentDelegate: a delegate can transfer or burn anyone's tokens.")
		case "transferHook":
			a.flag("transfer_hook", "medium", "Transfers run a program", "Token-2022 transferHook: every transfer calls a program that can block it.")
		case "nonTransferable":
			a.flag("non_transferable", "critical", "Cannot be transferred", "Token-2022 nonTransferable.")
		case "pausableConfig", "pausable":
			a.flag("pause", "medium", "Transfers can be paused", "Token-2022 pausable extension.")
		}
	}
	if err := t.solanaHolders(ctx, in.Address, m, a); err != nil {
		return nil, err
	}
	a.Finish()
	return out, nil
}

func (t *Tools) solanaHolders(ctx context.Context, addr string, m *solMint, a *Audit) error {
	supply, ok := new(big.Int).SetString(m.Info.Supply, 10)
	if !ok || supply.Sign() == 0 {
		return nil
	}
	var r struct {
		Value []struct {
			Address string `json:"address"`
			Amount  string `json:"amount"`
		} `json:"value"`
	}
	if err := t.sol.Call(ctx, &r, "getTokenLargestAccounts", addr); err != nil {
		return chain.SolanaErr(err)
	}
	hi := &HolderInfo{Top: []HolderShare{}}
	for _, v := range r.Value {
		amt, ok := new(big.Int).SetString(v.Amount, 10)
		if !ok {
			continue
		}
		f, _ := new(big.Float).Quo(new(big.Float).SetInt(amt), new(big.Float).SetInt(supply)).Float64()
		hi.Top = append(hi.Top, HolderShare{Address: v.Address, Pct: num.Round(f*100, 6)})
	}
	sort.Slice(hi.Top, func(i, j int) bool { return hi.Top[i].Pct > hi.Top[j].Pct })
	hi.Seen = len(hi.Top)
	hi.Top = hi.Top[:min(10, len(hi.Top))]
	for _, s := range hi.Top {
		hi.Top10Pct += s.Pct
	}
	hi.Top10Pct = num.Round(hi.Top10Pct, 6)
	a.Out.Holders = hi
	switch {
	case len(hi.Top) > 0 && hi.Top[0].Pct > 50:
		a.flag("holder_concentration", "high", "One account holds most of the supply", fmt.Sprintf("Token account %s holds %.2f%% (pools and lockers are not told apart on Solana).", hi.Top[0].Address, hi.Top[0].Pct))
	case hi.Top10Pct > 50:
		a.flag("holder_concentration", "medium", "Supply is concentrated", fmt.Sprintf("The ten largest token accounts hold %.2f%%.", hi.Top10Pct))
	}
	return nil
}
