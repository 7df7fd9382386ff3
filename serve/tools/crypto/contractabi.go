package crypto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
)

// ABIInput is the input of contract_abi.
type ABIInput struct {
	Chain         string `json:"chain" doc:"EVM chain." enum:"ethereum|base|arbitrum|optimism|polygon|bsc"`
	Address       string `json:"address" doc:"Contract address." pattern:"^0x[0-9a-fA-F]{40}$"`
	IncludeSource bool   `json:"include_source,omitempty" doc:"Add the verified source files (at most 600,000 characters in all)." default:"false"`
	ResolveProxy  bool   `json:"resolve_proxy,omitempty" doc:"Detect EIP-1967 (and beacon), EIP-1822, EIP-1167 and ZeppelinOS proxies on chain and add the implementation's ABI." default:"true"`
}

// ABIOutput is the answer of contract_abi.
type ABIOutput struct {
	Chain       string            `json:"chain"`
	Address     string            `json:"address"`
	Source      string            `json:"verified_by"` // sourcify or etherscan
	Match       string            `json:"match"`
	Name        string            `json:"name,omitempty"`
	Language    string            `json:"language,omitempty"`
	Compiler    string            `json:"compiler_version,omitempty"`
	Optimizer   *bool             `json:"optimizer,omitempty"`
	Runs        string            `json:"optimizer_runs,omitempty"`
	EVMVersion  string            `json:"evm_version,omitempty"`
	License     string            `json:"license,omitempty"`
	Deployment  *Deployment       `json:"deployment,omitempty"`
	ABI         json.RawMessage   `json:"abi"`
	Functions   []Signature       `json:"functions"`
	Events      []Signature       `json:"events"`
	Errors      []Signature       `json:"errors"`
	Proxy       *ProxyABI         `json:"proxy,omitempty"`
	SourceFiles map[string]string `json:"source_files,omitempty"`
	SourceChars int               `json:"source_chars,omitempty"`
	SourceCut   bool              `json:"source_truncated,omitempty"`
	CheckedAt   time.Time         `json:"checked_at"`
}

// Signature is a function, event or error with its selector (4 bytes for
// functions and errors, the topic hash for events).
type Signature struct {
	Name            string `json:"name"`
	Signature       string `json:"signature"`
	Selector        string `json:"selector"`
	StateMutability string `json:"state_mutability,omitempty"`
}

// ProxyABI is the resolved proxy with the implementation's ABI.
type ProxyABI struct {
	ProxyInfo
	ImplementationVerified bool            `json:"implementation_verified"`
	ImplementationName     string          `json:"implementation_name,omitempty"`
	ImplementationABI      json.RawMessage `json:"implementation_abi,omitempty"`
	ImplementationFuncs    []Signature     `json:"implementation_functions,omitempty"`
}

const maxSourceChars = 600_000

// checkABI refuses an unverified contract before payment (404).
func (t *Tools) checkABI(ctx context.Context, in *ABIInput) error {
	c, err := t.client("chain", in.Chain)
	if err != nil {
		return err
	}
	_, err = t.lookupVerified(ctx, c.Chain.ChainID, common.HexToAddress(in.Address))
	if errors.Is(err, errNotVerified) {
		return apierr.NotFound("contract_not_verified", fmt.Sprintf("%s on %s is not verified on Sourcify or Etherscan", in.Address, in.Chain))
	}
	return err
}

func (t *Tools) contractABI(ctx context.Context, in *ABIInput) (*ABIOutput, error) {
	c, err := t.client("chain", in.Chain)
	if err != nil {
		return nil, err
	}
	addr := common.HexToAddress(in.Address)
	v, err := t.lookupVerified(ctx, c.Chain.ChainID, addr)
	if errors.Is(err, errNotVerified) {
		return nil, apierr.NotFound("contract_not_verified", in.Address+" is not verified")
	}
	if err != nil {
		return nil, err
	}
	out := &ABIOutput{Chain: c.Chain.Name, Address: addr.Hex(), Source: v.Source, Match: v.Match, Name: v.Name,
		Language: v.Language, Compiler: v.Compiler, Optimizer: v.Optimizer, Runs: v.Runs, EVMVersion: v.EVMVersion,
		License: v.License, Deployment: v.Deployment, ABI: v.ABI, CheckedAt: t.cfg.Now().UTC()}
	out.Functions, out.Events, out.Errors = signatures(v.ABI)
	if in.IncludeSource {
		out.SourceFiles, out.SourceChars, out.SourceCut = capSources(v.Sources)
	}
	if in.ResolveProxy {
		st, err := readCode(ctx, c, addr)
		if err != nil {
			return nil, err
		}
		var p *ProxyInfo
		if st.Proxy != nil {
			p = st.Proxy
		} else if v.ProxyHint != "" && len(st.Code) > 0 {
			// The explorer knows a pattern we do not read on chain.
			p = &ProxyInfo{Type: "explorer-reported", Implementation: common.HexToAddress(v.ProxyHint).Hex()}
		}
		if p != nil && p.Implementation != "" {
			pa := &ProxyABI{ProxyInfo: *p}
			iv, err := t.lookupVerified(ctx, c.Chain.ChainID, common.HexToAddress(p.Implementation))
			switch {
			case err == nil:
				pa.ImplementationVerified, pa.ImplementationName, pa.ImplementationABI = true, iv.Name, iv.ABI
				pa.ImplementationFuncs, _, _ = signatures(iv.ABI)
			case !errors.Is(err, errNotVerified):
				return nil, err
			}
			out.Proxy = pa
		}
	}
	return out, nil
}

// signatures lists functions, events and errors of an ABI, sorted by
// signature; entries without a name are skipped.
func signatures(raw json.RawMessage) (fns, evs, errs []Signature) {
	fns, evs, errs = []Signature{}, []Signature{}, []Signature{}
	a, err := abi.JSON(strings.NewReader(string(raw)))
	if err != nil {
		return
	}
	for _, m := range a.Methods {
		if m.RawName == "" {
			continue
		}
		fns = append(fns, Signature{Name: m.RawName, Signature: m.Sig, Selector: "0x" + common.Bytes2Hex(m.ID), StateMutability: m.StateMutability})
	}
	for _, e := range a.Events {
		if e.RawName == "" {
			continue
		}
		evs = append(evs, Signature{Name: e.RawName, Signature: e.Sig, Selector: e.ID.Hex()})
	}
	for _, e := range a.Errors {
		errs = append(errs, Signature{Name: e.Name, Signature: e.Sig, Selector: "0x" + common.Bytes2Hex(e.ID[:4])})
	}
	for _, s := range [][]Signature{fns, evs, errs} {
		sort.Slice(s, func(i, j int) bool { return s[i].Signature < s[j].Signature })
	}
	return
}

// capSources keeps whole files, in name order, up to maxSourceChars; the
// first file that does not fit is cut.
func capSources(src map[string]string) (map[string]string, int, bool) {
	names := make([]string, 0, len(src))
	total := 0
	for n, s := range src {
		names = append(names, n)
		total += len([]rune(s))
	}
	sort.Strings(names)
	out := map[string]string{}
	left := maxSourceChars
	cut := false
	for _, n := range names {
		r := []rune(src[n])
		if len(r) > left {
			r, cut = r[:left], true
		}
		out[n] = string(r)
		left -= len(r)
		if left == 0 {
			cut = cut || len(out) < len(names)
			break
		}
	}
	return out, total, cut
}
