// Package call wraps the crypto tools' functions as registry handlers and
// checks. Each call runs under chain.WithPlan: its node reads see one
// block per chain, are counted for the tool, and are recorded so that the
// same call at a later block prefetches them.
package call

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// Handle wraps a tool function as a registry handler.
func Handle[In, Out any](tool string, f func(context.Context, *In) (*Out, error)) func(context.Context, *In) (*registry.Result, error) {
	return func(ctx context.Context, in *In) (*registry.Result, error) {
		ctx = planned(ctx, tool, "handle", in)
		out, err := f(ctx, in)
		chain.EndCall(ctx)
		if err != nil {
			return nil, err
		}
		return &registry.Result{Value: out}, nil
	}
}

// Check wraps a check before payment as Handle wraps a handler.
func Check[In any](tool string, f func(context.Context, *In) error) func(context.Context, *In) error {
	return func(ctx context.Context, in *In) error {
		ctx = planned(ctx, tool, "check", in)
		err := f(ctx, in)
		chain.EndCall(ctx)
		return err
	}
}

// planned starts a tool call keyed by the tool, the stage (check or
// handle) and the input; a check prefetches the paid call's reads too.
func planned[In any](ctx context.Context, tool, stage string, in *In) context.Context {
	b, err := json.Marshal(in)
	if err != nil {
		return chain.WithCall(ctx, tool)
	}
	key := func(stage string) string { return tool + " " + stage + " " + string(b) }
	if stage == "check" {
		return chain.WithPlan(ctx, tool, key(stage), key("handle"))
	}
	return chain.WithPlan(ctx, tool, key(stage))
}

// Tool marks a crypto tool for MCP as reaching outside the archive.
func Tool() *registry.Tool { return &registry.Tool{OpenWorld: true} }

// List splits a comma list input, dropping blanks.
func List(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// IsAddress says whether an input is an EVM address as the tools take it:
// 0x and 40 hex digits.
func IsAddress(s string) bool {
	return len(s) == 42 && strings.HasPrefix(s, "0x") && common.IsHexAddress(s)
}
