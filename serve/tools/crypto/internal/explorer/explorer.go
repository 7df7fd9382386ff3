// Package explorer looks up verified contracts: Sourcify (v2 API) first,
// an Etherscan-style v2 API as the fallback. Answers, and the absence of
// one, are cached, so that a tool's check before payment and its handler
// share one lookup.
package explorer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// Config configures a Client; every field is set (the crypto family fills
// the defaults).
type Config struct {
	// SourcifyURL is the Sourcify server (v2 API).
	SourcifyURL string
	// EtherscanURL is the Etherscan-style v2 API (one URL for all chains,
	// chainid parameter); EtherscanKey may be empty (rate-limited tier).
	EtherscanURL string
	EtherscanKey string
	// Timeout bounds each request.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Client asks the explorers. It is safe for concurrent use.
type Client struct {
	cfg   Config
	hc    *http.Client // operator-configured URLs, not user input
	cache *chain.Cache
}

// New returns a client with an empty cache.
func New(cfg Config) *Client {
	return &Client{cfg: cfg, hc: &http.Client{Timeout: cfg.Timeout}, cache: chain.NewCache(512)}
}

// Clear forgets every cached answer.
func (x *Client) Clear() { x.cache.Clear() }

// Verified is a verified contract as an explorer describes it.
type Verified struct {
	Source       string // sourcify or etherscan
	Match        string
	Name         string
	Compiler     string
	Language     string
	Optimizer    *bool
	Runs         string
	EVMVersion   string
	License      string
	ABI          json.RawMessage
	Sources      map[string]string
	Deployment   *Deployment
	ProxyHint    string // implementation the explorer reports, if any
	ProxyTypeHnt string
}

// Deployment is where the contract was created.
type Deployment struct {
	TxHash      string `json:"transaction_hash,omitempty"`
	BlockNumber string `json:"block_number,omitempty"`
	Deployer    string `json:"deployer,omitempty"`
}

// ErrNotVerified: neither explorer has the contract.
var ErrNotVerified = errors.New("contract not verified")

const maxExplorerBody = 32 << 20

// Lookup asks Sourcify, then the Etherscan-style API; answers are
// cached ten minutes, so the check before payment and the handler share one
// lookup. A contract neither knows is ErrNotVerified; when both failed
// otherwise, the error is a 502/504.
func (x *Client) Lookup(ctx context.Context, chainID uint64, addr common.Address) (*Verified, error) {
	key := fmt.Sprintf("v:%d:%s", chainID, addr.Hex())
	if v, ok := x.cache.Get(key); ok {
		if v == nil {
			return nil, ErrNotVerified
		}
		return v.(*Verified), nil
	}
	v, errS := x.sourcify(ctx, chainID, addr)
	if errS != nil {
		var errE error
		v, errE = x.etherscan(ctx, chainID, addr)
		if errE != nil {
			if !errors.Is(errS, ErrNotVerified) || !errors.Is(errE, ErrNotVerified) {
				x.cfg.Logger.Warn("crypto: explorer lookup failed", "chain_id", chainID, "address", addr.Hex(), "sourcify", errS, "etherscan", errE)
			}
			if errors.Is(errS, ErrNotVerified) && errors.Is(errE, ErrNotVerified) {
				x.cache.Put(key, nil, time.Minute)
				return nil, ErrNotVerified
			}
			if !errors.Is(errE, ErrNotVerified) {
				return nil, errE
			}
			return nil, errS
		}
	}
	x.cache.Put(key, v, 10*time.Minute)
	return v, nil
}

func (x *Client) getJSON(ctx context.Context, rawURL, who string, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := x.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Timeout") {
			return 0, apierr.New(apierr.ErrUpstreamTimeout, "explorer_timeout", who+" did not answer in time")
		}
		return 0, apierr.New(apierr.ErrUpstream, "explorer_error", who+" could not be reached")
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return resp.StatusCode, nil
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, apierr.New(apierr.ErrUpstream, "explorer_error", fmt.Sprintf("%s answered HTTP %d", who, resp.StatusCode))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxExplorerBody))
	if err != nil {
		return resp.StatusCode, apierr.New(apierr.ErrUpstream, "explorer_error", who+": reading the answer failed")
	}
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, apierr.New(apierr.ErrUpstream, "explorer_bad_answer", who+" answered something that is not the expected JSON")
	}
	return resp.StatusCode, nil
}

// sourcify reads GET /v2/contract/{chainId}/{address}?fields=all.
func (x *Client) sourcify(ctx context.Context, chainID uint64, addr common.Address) (*Verified, error) {
	u := fmt.Sprintf("%s/v2/contract/%d/%s?fields=all", strings.TrimRight(x.cfg.SourcifyURL, "/"), chainID, addr.Hex())
	var r struct {
		Match      *string         `json:"match"`
		ABI        json.RawMessage `json:"abi"`
		Deployment *struct {
			TransactionHash string `json:"transactionHash"`
			BlockNumber     string `json:"blockNumber"`
			Deployer        string `json:"deployer"`
		} `json:"deployment"`
		Sources map[string]struct {
			Content string `json:"content"`
		} `json:"sources"`
		Compilation *struct {
			Language         string         `json:"language"`
			Compiler         string         `json:"compiler"`
			CompilerVersion  string         `json:"compilerVersion"`
			Name             string         `json:"name"`
			CompilerSettings map[string]any `json:"compilerSettings"`
		} `json:"compilation"`
		ProxyResolution *struct {
			IsProxy         bool   `json:"isProxy"`
			ProxyType       string `json:"proxyType"`
			Implementations []struct {
				Address string `json:"address"`
			} `json:"implementations"`
		} `json:"proxyResolution"`
	}
	status, err := x.getJSON(ctx, u, "Sourcify", &r)
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound || r.Match == nil || *r.Match == "" {
		return nil, ErrNotVerified
	}
	v := &Verified{Source: "sourcify", Match: *r.Match, ABI: r.ABI, Sources: map[string]string{}}
	if c := r.Compilation; c != nil {
		v.Name, v.Language, v.Compiler = c.Name, c.Language, c.CompilerVersion
		if opt, ok := c.CompilerSettings["optimizer"].(map[string]any); ok {
			if en, ok := opt["enabled"].(bool); ok {
				v.Optimizer = &en
			}
			if runs, ok := opt["runs"].(float64); ok {
				v.Runs = fmt.Sprint(runs)
			}
		}
		if ev, ok := c.CompilerSettings["evmVersion"].(string); ok {
			v.EVMVersion = ev
		}
	}
	if d := r.Deployment; d != nil {
		v.Deployment = &Deployment{TxHash: d.TransactionHash, BlockNumber: d.BlockNumber, Deployer: d.Deployer}
	}
	for name, s := range r.Sources {
		v.Sources[name] = s.Content
	}
	if p := r.ProxyResolution; p != nil && p.IsProxy && len(p.Implementations) > 0 {
		v.ProxyHint, v.ProxyTypeHnt = p.Implementations[0].Address, p.ProxyType
	}
	return v, nil
}

// etherscan reads module=contract&action=getsourcecode of the v2 API.
func (x *Client) etherscan(ctx context.Context, chainID uint64, addr common.Address) (*Verified, error) {
	q := url.Values{"chainid": {fmt.Sprint(chainID)}, "module": {"contract"}, "action": {"getsourcecode"}, "address": {addr.Hex()}}
	if x.cfg.EtherscanKey != "" {
		q.Set("apikey", x.cfg.EtherscanKey)
	}
	var r struct {
		Status  string          `json:"status"`
		Message string          `json:"message"`
		Result  json.RawMessage `json:"result"`
	}
	if _, err := x.getJSON(ctx, x.cfg.EtherscanURL+"?"+q.Encode(), "Etherscan", &r); err != nil {
		return nil, err
	}
	var rows []struct {
		SourceCode, ABI, ContractName, CompilerVersion, OptimizationUsed, Runs, EVMVersion, LicenseType, Proxy, Implementation string
	}
	if r.Status != "1" || json.Unmarshal(r.Result, &rows) != nil || len(rows) == 0 {
		// status 0 carries the reason (rate limit, bad key) in result.
		var why string
		_ = json.Unmarshal(r.Result, &why)
		return nil, apierr.New(apierr.ErrUpstream, "explorer_error", "Etherscan: "+cutStr(r.Message+" "+why, 200))
	}
	row := rows[0]
	if row.ABI == "" || strings.HasPrefix(row.ABI, "Contract source code not verified") || !json.Valid([]byte(row.ABI)) {
		return nil, ErrNotVerified
	}
	v := &Verified{Source: "etherscan", Match: "verified", Name: row.ContractName, Compiler: row.CompilerVersion,
		Language: "Solidity", Runs: row.Runs, EVMVersion: row.EVMVersion, License: row.LicenseType, ABI: json.RawMessage(row.ABI)}
	if strings.HasPrefix(row.CompilerVersion, "vyper") {
		v.Language = "Vyper"
	}
	if row.OptimizationUsed != "" {
		on := row.OptimizationUsed == "1"
		v.Optimizer = &on
	}
	v.Sources = etherscanSources(row.SourceCode, row.ContractName)
	if row.Proxy == "1" && common.IsHexAddress(row.Implementation) {
		v.ProxyHint = row.Implementation
	}
	return v, nil
}

// etherscanSources unpacks SourceCode: a single flattened file, a JSON map
// of files, or the standard JSON input wrapped in double braces.
func etherscanSources(src, name string) map[string]string {
	out := map[string]string{}
	s := strings.TrimSpace(src)
	if strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}") {
		s = s[1 : len(s)-1]
	}
	if strings.HasPrefix(s, "{") {
		var std struct {
			Sources map[string]struct {
				Content string `json:"content"`
			} `json:"sources"`
		}
		if json.Unmarshal([]byte(s), &std) == nil && len(std.Sources) > 0 {
			for k, f := range std.Sources {
				out[k] = f.Content
			}
			return out
		}
		var files map[string]struct {
			Content string `json:"content"`
		}
		if json.Unmarshal([]byte(s), &files) == nil && len(files) > 0 {
			for k, f := range files {
				out[k] = f.Content
			}
			return out
		}
	}
	if src != "" {
		out[name+".sol"] = src
	}
	return out
}

func cutStr(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
