package contractabi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/explorer"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/proxy"
)

// Input is the input of contract_abi.
type Input struct {
	Chain         string `json:"chain" doc:"EVM chain." enum:"ethereum|base|arbitrum|optimism|polygon|bsc"`
	Address       string `json:"address" doc:"Contract address." pattern:"^0x[0-9a-fA-F]{40}$"`
	IncludeSource bool   `json:"include_source,omitempty" doc:"Add the verified source files (at most 600,000 characters in all)." default:"false"`
	ResolveProxy  bool   `json:"resolve_proxy,omitempty" doc:"Detect EIP-1967 (and beacon), EIP-1822, EIP-1167 and ZeppelinOS proxies on chain and add the implementation's ABI." default:"true"`
}

// Output is the answer of contract_abi.
type Output struct {
	Chain       string               `json:"chain"`
	Address     string               `json:"address"`
	Source      string               `json:"verified_by"` // sourcify or etherscan
	Match       string               `json:"match"`
	Name        string               `json:"name,omitempty"`
	Language    string               `json:"language,omitempty"`
	Compiler    string               `json:"compiler_version,omitempty"`
	Optimizer   *bool                `json:"optimizer,omitempty"`
	Runs        string               `json:"optimizer_runs,omitempty"`
	EVMVersion  string               `json:"evm_version,omitempty"`
	License     string               `json:"license,omitempty"`
	Deployment  *explorer.Deployment `json:"deployment,omitempty"`
	ABI         json.RawMessage      `json:"abi"`
	Functions   []Signature          `json:"functions"`
	Events      []Signature          `json:"events"`
	Errors      []Signature          `json:"errors"`
	Proxy       *ProxyABI            `json:"proxy,omitempty"`
	SourceFiles map[string]string    `json:"source_files,omitempty"`
	SourceChars int                  `json:"source_chars,omitempty"`
	SourceCut   bool                 `json:"source_truncated,omitempty"`
	CheckedAt   time.Time            `json:"checked_at"`
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
	proxy.Info
	ImplementationVerified bool            `json:"implementation_verified"`
	ImplementationName     string          `json:"implementation_name,omitempty"`
	ImplementationABI      json.RawMessage `json:"implementation_abi,omitempty"`
	ImplementationFuncs    []Signature     `json:"implementation_functions,omitempty"`
}

const maxSourceChars = 600_000

// Tools serves contract_abi over the EVM chains' clients and the
// explorers.
type Tools struct {
	evm chain.EVMs
	exp *explorer.Client
	now func() time.Time
}

// New returns the tool; the clients are the crypto family's, shared with
// its other tools.
func New(evm chain.EVMs, exp *explorer.Client, now func() time.Time) *Tools {
	return &Tools{evm: evm, exp: exp, now: now}
}

// Endpoints returns the registry entry of contract_abi.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "contract_abi", Method: http.MethodGet, Path: "/v1/crypto/contract-abi", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Verified ABI of a contract with compiler, deployment, function, event and error signatures (selectors), optional source, and the implementation's ABI behind a proxy.",
		Description: "From Sourcify, with an Etherscan-style API as fallback. Proxies (EIP-1967 and its beacon variant, EIP-1822, " +
			"EIP-1167 minimal proxies, ZeppelinOS) are resolved from chain state. An unverified contract is a 404 before payment.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
		Check:   call.Check("contract_abi", t.check),
		Handle:  call.Handle("contract_abi", t.contractABI),
	}.Endpoint()}
}

// check refuses an unverified contract before payment (404).
func (t *Tools) check(ctx context.Context, in *Input) error {
	c, err := t.evm.Client("chain", in.Chain)
	if err != nil {
		return err
	}
	_, err = t.exp.Lookup(ctx, c.Chain.ChainID, common.HexToAddress(in.Address))
	if errors.Is(err, explorer.ErrNotVerified) {
		return apierr.NotFound("contract_not_verified", fmt.Sprintf("%s on %s is not verified on Sourcify or Etherscan", in.Address, in.Chain))
	}
	return err
}

func (t *Tools) contractABI(ctx context.Context, in *Input) (*Output, error) {
	c, err := t.evm.Client("chain", in.Chain)
	if err != nil {
		return nil, err
	}
	addr := common.HexToAddress(in.Address)
	v, err := t.exp.Lookup(ctx, c.Chain.ChainID, addr)
	if errors.Is(err, explorer.ErrNotVerified) {
		return nil, apierr.NotFound("contract_not_verified", in.Address+" is not verified")
	}
	if err != nil {
		return nil, err
	}
	out := &Output{Chain: c.Chain.Name, Address: addr.Hex(), Source: v.Source, Match: v.Match, Name: v.Name,
		Language: v.Language, Compiler: v.Compiler, Optimizer: v.Optimizer, Runs: v.Runs, EVMVersion: v.EVMVersion,
		License: v.License, Deployment: v.Deployment, ABI: v.ABI, CheckedAt: t.now().UTC()}
	out.Functions, out.Events, out.Errors = signatures(v.ABI)
	if in.IncludeSource {
		out.SourceFiles, out.SourceChars, out.SourceCut = capSources(v.Sources)
	}
	if in.ResolveProxy {
		st, err := proxy.Read(ctx, c, addr)
		if err != nil {
			return nil, err
		}
		var p *proxy.Info
		if st.Proxy != nil {
			p = st.Proxy
		} else if v.ProxyHint != "" && len(st.Code) > 0 {
			// The explorer knows a pattern we do not read on chain.
			p = &proxy.Info{Type: "explorer-reported", Implementation: common.HexToAddress(v.ProxyHint).Hex()}
		}
		if p != nil && p.Implementation != "" {
			pa := &ProxyABI{Info: *p}
			iv, err := t.exp.Lookup(ctx, c.Chain.ChainID, common.HexToAddress(p.Implementation))
			switch {
			case err == nil:
				pa.ImplementationVerified, pa.ImplementationName, pa.ImplementationABI = true, iv.Name, iv.ABI
				pa.ImplementationFuncs, _, _ = signatures(iv.ABI)
			case !errors.Is(err, explorer.ErrNotVerified):
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
