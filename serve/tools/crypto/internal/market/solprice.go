package market

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// Solana prices come from Orca-Whirlpool-style pools: concentrated
// liquidity like Uniswap V3, one account per (mint pair, tick spacing) at
// a program-derived address, so the pools of a mint are found without an
// index by deriving every candidate address and reading them all with
// getMultipleAccounts; a second call reads the pools' vaults and mints.

// Whirlpool is a pool's state: the account layout of the Whirlpool
// program (github.com/orca-so/whirlpools, programs/whirlpool/src/state/
// whirlpool.rs): 8-byte discriminator, whirlpools_config (8), bump (40),
// tick_spacing (41), tick_spacing_seed (43), fee_rate u16 (45),
// protocol_fee_rate u16 (47), liquidity u128 (49), sqrt_price u128 Q64.64
// (65), tick_current_index i32 (81), protocol fees owed (85, 93),
// token_mint_a (101), token_vault_a (133), fee_growth_global_a (165),
// token_mint_b (181), token_vault_b (213), ...; little-endian.
type Whirlpool struct {
	Addr           string
	FeeRate        uint16 // hundredths of a basis point
	L, Sqrt        *big.Int
	MintA, MintB   string
	VaultA, VaultB string
	// From the second read: vault balances and mint decimals.
	ResA, ResB *big.Int
	DecA, DecB uint8
}

const whirlpoolMinLen = 245

// whirlpoolDisc is Anchor's account discriminator of Whirlpool.
var whirlpoolDisc = func() []byte { h := sha256.Sum256([]byte("account:Whirlpool")); return h[:8] }()

func le128(b []byte) *big.Int {
	r := make([]byte, 16)
	for i := range 16 {
		r[15-i] = b[i]
	}
	return new(big.Int).SetBytes(r)
}

func decodeWhirlpool(addr string, data []byte) (*Whirlpool, bool) {
	if len(data) < whirlpoolMinLen || !bytes.Equal(data[:8], whirlpoolDisc) {
		return nil, false
	}
	return &Whirlpool{Addr: addr, FeeRate: binary.LittleEndian.Uint16(data[45:]),
		L: le128(data[49:65]), Sqrt: le128(data[65:81]),
		MintA: Base58Encode(data[101:133]), VaultA: Base58Encode(data[133:165]),
		MintB: Base58Encode(data[181:213]), VaultB: Base58Encode(data[213:245])}, true
}

// edwards25519 constants: p = 2^255 − 19 and d = −121665/121666.
var (
	edP = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	edD = func() *big.Int {
		inv := new(big.Int).ModInverse(big.NewInt(121666), edP)
		d := new(big.Int).Mul(big.NewInt(-121665), inv)
		return d.Mod(d, edP)
	}()
	edHalf = new(big.Int).Rsh(new(big.Int).Sub(edP, big.NewInt(1)), 1)
)

// onCurve reports whether 32 bytes decompress to an ed25519 point, as
// Solana's is_on_curve does: x² = (y²−1)/(d·y²+1) must be a square mod p.
func onCurve(b []byte) bool {
	r := make([]byte, 32)
	for i := range 32 {
		r[31-i] = b[i]
	}
	r[0] &= 0x7f // the sign bit of x
	y := new(big.Int).SetBytes(r)
	y2 := new(big.Int).Mul(y, y)
	y2.Mod(y2, edP)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	v := new(big.Int).Mul(edD, y2)
	v.Add(v, big.NewInt(1)).Mod(v, edP)
	if v.Sign() == 0 {
		return false
	}
	x2 := new(big.Int).Mul(u.Mod(u, edP), new(big.Int).ModInverse(v, edP))
	x2.Mod(x2, edP)
	return x2.Sign() == 0 || new(big.Int).Exp(x2, edHalf, edP).Cmp(big.NewInt(1)) == 0
}

// FindPDA is Solana's find_program_address: the first bump from 255 down
// whose sha256(seeds, bump, program, "ProgramDerivedAddress") is off the
// curve.
func FindPDA(program []byte, seeds ...[]byte) ([]byte, bool) {
	for bump := 255; bump >= 0; bump-- {
		h := sha256.New()
		for _, s := range seeds {
			h.Write(s)
		}
		h.Write([]byte{byte(bump)})
		h.Write(program)
		h.Write([]byte("ProgramDerivedAddress"))
		if sum := h.Sum(nil); !onCurve(sum) {
			return sum, true
		}
	}
	return nil, false
}

// WhirlpoolAddr derives the pool of two mints at a tick spacing (mint A
// is the lower in byte order, as the program requires); cached for a day.
func WhirlpoolAddr(s *chain.Solana, w *chain.Whirlpool, m1, m2 string, ts uint16) (string, bool) {
	key := fmt.Sprintf("wp:%s:%s:%d", m1, m2, ts)
	if v, ok := s.Cache.Get(key); ok {
		a, _ := v.(string)
		return a, a != ""
	}
	a, okA := Base58Decode(m1)
	b, okB := Base58Decode(m2)
	prog, okP := Base58Decode(w.Program)
	cfg, okC := Base58Decode(w.Config)
	if !okA || !okB || !okP || !okC || len(a) != 32 || len(b) != 32 {
		return "", false
	}
	if bytes.Compare(a, b) > 0 {
		a, b = b, a
	}
	pda, ok := FindPDA(prog, []byte("whirlpool"), cfg, a, b, binary.LittleEndian.AppendUint16(nil, ts))
	out := ""
	if ok {
		out = Base58Encode(pda)
	}
	s.Cache.Put(key, out, 24*time.Hour)
	return out, ok
}

// solAccount is one getMultipleAccounts entry (base64 encoding).
type solAccount struct {
	Owner string    `json:"owner"`
	Data  [2]string `json:"data"`
}

// getAccounts reads accounts with getMultipleAccounts, 100 a call (the
// RPC limit); a missing account is nil. It returns the slot of the last
// answer.
func getAccounts(ctx context.Context, s *chain.Solana, addrs []string) ([][]byte, []string, uint64, error) {
	data, owners := make([][]byte, len(addrs)), make([]string, len(addrs))
	var slot uint64
	for lo := 0; lo < len(addrs); lo += 100 {
		hi := min(lo+100, len(addrs))
		var r struct {
			Context struct {
				Slot json.Number `json:"slot"`
			} `json:"context"`
			Value []*solAccount `json:"value"`
		}
		if err := s.Call(ctx, &r, "getMultipleAccounts", addrs[lo:hi], map[string]string{"encoding": "base64"}); err != nil {
			return nil, nil, 0, chain.SolanaErr(err)
		}
		if len(r.Value) != hi-lo {
			return nil, nil, 0, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", "solana: getMultipleAccounts answered the wrong number of accounts")
		}
		if n, err := r.Context.Slot.Int64(); err == nil {
			slot = uint64(n)
		}
		for i, a := range r.Value {
			if a == nil {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(a.Data[0])
			if err != nil {
				return nil, nil, 0, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", "solana: account data is not base64")
			}
			data[lo+i], owners[lo+i] = b, a.Owner
		}
	}
	return data, owners, slot, nil
}

// SolQuote is a Solana token's USD price and the deepest pool behind it.
type SolQuote struct {
	Price
	Best     *Whirlpool
	Decimals uint8
}

// SolMarket is what one read of the pools gives: prices, the SOL/USDC
// pool and the slot.
type SolMarket struct {
	Quotes  map[string]*SolQuote
	SOLPool *Whirlpool
	Slot    uint64
}

// SolPrices prices mints from the Whirlpool pools against USDC and
// wrapped SOL (SOL itself from its USDC pools): two or three
// getMultipleAccounts calls for up to five mints. USDC is taken as 1 USD.
// A mint without a pool is absent.
func SolPrices(ctx context.Context, s *chain.Solana, mints []string) (*SolMarket, error) {
	w := SolWhirlpool(s)
	if w == nil {
		return nil, apierr.New(apierr.ErrUnavailable, "chain_not_configured", "solana prices need an RPC endpoint and a whirlpool configuration")
	}
	want := append([]string{w.WSOLMint}, mints...)
	var cands []string
	seen := map[string]bool{}
	for _, m := range want {
		for _, q := range []string{w.USDCMint, w.WSOLMint} {
			if m == q {
				continue
			}
			for _, ts := range w.TickSpacings {
				if a, ok := WhirlpoolAddr(s, w, m, q, ts); ok && !seen[a] {
					seen[a] = true
					cands = append(cands, a)
				}
			}
		}
	}
	data, owners, _, err := getAccounts(ctx, s, cands)
	if err != nil {
		return nil, err
	}
	var pools []*Whirlpool
	var second []string
	for i, d := range data {
		if d == nil || owners[i] != w.Program {
			continue
		}
		if p, ok := decodeWhirlpool(cands[i], d); ok && p.L.Sign() > 0 && p.Sqrt.Sign() > 0 {
			pools = append(pools, p)
			second = append(second, p.VaultA, p.VaultB, p.MintA, p.MintB)
		}
	}
	m := &SolMarket{Quotes: map[string]*SolQuote{}}
	if len(second) == 0 {
		return m, nil
	}
	data, _, slot, err := getAccounts(ctx, s, second)
	if err != nil {
		return nil, err
	}
	m.Slot = slot
	var ok []*Whirlpool
	for i, p := range pools {
		va, vb, ma, mb := data[4*i], data[4*i+1], data[4*i+2], data[4*i+3]
		// SPL token account: amount u64 at 64; mint: decimals at 44.
		if len(va) < 72 || len(vb) < 72 || len(ma) < 45 || len(mb) < 45 {
			continue
		}
		p.ResA, p.ResB = new(big.Int).SetUint64(binary.LittleEndian.Uint64(va[64:])), new(big.Int).SetUint64(binary.LittleEndian.Uint64(vb[64:]))
		p.DecA, p.DecB = ma[44], mb[44]
		ok = append(ok, p)
	}
	// SOL first: the SOL pools of other mints need its price.
	sol := &SolQuote{Decimals: 9}
	for _, p := range ok {
		if PairOf(p, w.WSOLMint, w.USDCMint) {
			src := whirlSource(p, w.WSOLMint, 1, "USDC")
			if src.DepthUSD >= sol.DepthUSD {
				sol.Best, m.SOLPool = p, p
			}
			sol.Price = *addSource(&sol.Price, src, nil)
		}
	}
	if sol.Sources != nil {
		sol.Confidence = confidence(&sol.Price)
		m.Quotes[w.WSOLMint] = sol
	}
	for _, mint := range mints {
		switch {
		case mint == w.USDCMint:
			m.Quotes[mint] = &SolQuote{Price: Price{PriceUSD: 1, Quote: "USDC", Confidence: 1}, Decimals: 6}
			continue
		case mint == w.WSOLMint:
			continue
		}
		q := &SolQuote{}
		for _, p := range ok {
			var src Source
			switch {
			case PairOf(p, mint, w.USDCMint):
				src = whirlSource(p, mint, 1, "USDC")
			case PairOf(p, mint, w.WSOLMint) && sol.PriceUSD > 0:
				src = whirlSource(p, mint, sol.PriceUSD, "SOL")
			default:
				continue
			}
			if src.PriceUSD > 0 && src.DepthUSD >= q.DepthUSD {
				q.Best = p
			}
			q.Price = *addSource(&q.Price, src, nil)
			q.Decimals = p.decOf(mint)
		}
		if q.Sources != nil {
			q.Confidence = confidence(&q.Price)
			m.Quotes[mint] = q
		}
	}
	return m, nil
}

// SolWhirlpool is the Solana chain's Whirlpool configuration; nil without
// a Solana client or without one.
func SolWhirlpool(s *chain.Solana) *chain.Whirlpool {
	if s == nil {
		return nil
	}
	return s.Chain.Whirlpool
}

// PairOf says whether p pools the mints a and b, in either order.
func PairOf(p *Whirlpool, a, b string) bool {
	return p.MintA == a && p.MintB == b || p.MintA == b && p.MintB == a
}

func (p *Whirlpool) decOf(mint string) uint8 {
	if mint == p.MintA {
		return p.DecA
	}
	return p.DecB
}

var q64 = new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 64))

// sqrtReal is √(price of A in B, base units).
func (p *Whirlpool) sqrtReal() *big.Float {
	return new(big.Float).SetPrec(256).Quo(new(big.Float).SetPrec(256).SetInt(p.Sqrt), q64)
}

// whirlSource prices mint in the pool's other token, whose USD price is
// usdQ; the depth is both vaults' value (the quote side doubled), which
// counts liquidity of every range, not only the current one.
func whirlSource(p *Whirlpool, mint string, usdQ float64, quoteSym string) Source {
	sq, _ := p.sqrtReal().Float64()
	raw := sq * sq // B per A, base units
	decT, decQ, resQ := p.DecA, p.DecB, p.ResB
	if mint != p.MintA {
		if raw == 0 {
			return Source{}
		}
		raw, decT, decQ, resQ = 1/raw, p.DecB, p.DecA, p.ResA
	}
	return Source{Pool: p.Addr, DEX: fmt.Sprintf("orca-whirlpool (fee %.2f%%)", float64(p.FeeRate)/1e4), Quote: quoteSym,
		PriceUSD: raw * pow10f(int(decT)-int(decQ)) * usdQ, DepthUSD: 2 * ToFloat(resQ, decQ) * usdQ}
}

// WhirlOut is the output of selling amt of mint in the pool, from its
// in-range liquidity: the constant-product curve on the virtual reserves
// L/√P (A) and L·√P (B) after the fee, which is the exact swap while no
// initialized tick is crossed; capped by the vault.
func WhirlOut(p *Whirlpool, mint string, amt *big.Int) *big.Int {
	prec := uint(256)
	l := new(big.Float).SetPrec(prec).SetInt(p.L)
	sq := p.sqrtReal()
	x := new(big.Float).SetPrec(prec).Quo(l, sq) // A
	y := new(big.Float).SetPrec(prec).Mul(l, sq) // B
	vault := p.ResB
	if mint != p.MintA {
		x, y, vault = y, x, p.ResA
	}
	in := new(big.Float).SetPrec(prec).SetInt(amt)
	in.Mul(in, new(big.Float).SetPrec(prec).SetFloat64(1-float64(p.FeeRate)/1e6))
	out := new(big.Float).SetPrec(prec).Mul(y, in)
	out.Quo(out, new(big.Float).SetPrec(prec).Add(x, in))
	o, _ := out.Int(nil)
	if o.Cmp(vault) > 0 {
		o = new(big.Int).Set(vault)
	}
	return o
}
