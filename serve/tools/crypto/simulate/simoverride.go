package simulate

import (
	"fmt"
	"regexp"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
)

// Override is a state override of one account for simulate_tx, in the
// format of go-ethereum's eth_call and debug_traceCall state overrides.
type Override struct {
	Balance string `json:"balance,omitempty" doc:"Balance in wei, decimal or 0x hex."`
	Nonce   string `json:"nonce,omitempty" doc:"Nonce, decimal or 0x hex."`
	Code    string `json:"code,omitempty" doc:"Runtime bytecode, 0x hex."`
	// State replaces the whole storage; StateDiff patches slots.
	State     map[string]string `json:"state,omitempty" doc:"Replace the whole storage: slot → value (32-byte hex)."`
	StateDiff map[string]string `json:"stateDiff,omitempty" doc:"Patch storage slots: slot → value (32-byte hex)."`
}

// Bounds of the state overrides of one simulation.
const (
	maxOverrideAccounts = 16
	maxOverrideSlots    = 256   // state and stateDiff entries, all accounts together
	maxOverrideCode     = 49152 // bytes: twice EIP-170's limit, room for EIP-7907
)

var slotRE = regexp.MustCompile(`^0x[0-9a-fA-F]{1,64}$`)

// accountOverride is a checked Override.
type accountOverride struct {
	Nonce     *hexutil.Uint64             `json:"nonce,omitempty"`
	Code      *hexutil.Bytes              `json:"code,omitempty"`
	Balance   *hexutil.Big                `json:"balance,omitempty"`
	State     map[common.Hash]common.Hash `json:"state,omitempty"`
	StateDiff map[common.Hash]common.Hash `json:"stateDiff,omitempty"`
}

// stateOverrides checks the input's overrides and returns them keyed by
// address; errors are 400s naming the field.
func stateOverrides(in map[string]Override) (map[common.Address]accountOverride, error) {
	const field = "state_overrides"
	if len(in) > maxOverrideAccounts {
		return nil, apierr.Invalid(field, fmt.Sprintf("at most %d accounts", maxOverrideAccounts))
	}
	out := make(map[common.Address]accountOverride, len(in))
	slots := 0
	for a, o := range in {
		if !call.IsAddress(a) {
			return nil, apierr.Invalid(field, fmt.Sprintf("%q: want 0x followed by 40 hex digits", a))
		}
		var ao accountOverride
		if o.Balance != "" {
			v, ok := parseWei(o.Balance)
			if !ok || v.BitLen() > 256 {
				return nil, apierr.Invalid(field, a+": balance: want wei as a decimal or 0x hex integer")
			}
			ao.Balance = (*hexutil.Big)(v)
		}
		if o.Nonce != "" {
			v, ok := parseWei(o.Nonce)
			if !ok || !v.IsUint64() {
				return nil, apierr.Invalid(field, a+": nonce: want a 64-bit integer")
			}
			n := hexutil.Uint64(v.Uint64())
			ao.Nonce = &n
		}
		if o.Code != "" {
			if !hexDataRE.MatchString(o.Code) || len(o.Code) > 2+2*maxOverrideCode {
				return nil, apierr.Invalid(field, fmt.Sprintf("%s: code: want 0x-prefixed hex of at most %d bytes", a, maxOverrideCode))
			}
			b := hexutil.Bytes(hexutil.MustDecode(o.Code))
			ao.Code = &b
		}
		if len(o.State) > 0 && len(o.StateDiff) > 0 {
			return nil, apierr.Invalid(field, a+": give state or stateDiff, not both")
		}
		slots += len(o.State) + len(o.StateDiff)
		if slots > maxOverrideSlots {
			return nil, apierr.Invalid(field, fmt.Sprintf("at most %d storage slots in all", maxOverrideSlots))
		}
		var err error
		if ao.State, err = slotMap(a, o.State); err != nil {
			return nil, err
		}
		if ao.StateDiff, err = slotMap(a, o.StateDiff); err != nil {
			return nil, err
		}
		out[common.HexToAddress(a)] = ao
	}
	return out, nil
}

func slotMap(a string, m map[string]string) (map[common.Hash]common.Hash, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[common.Hash]common.Hash, len(m))
	for k, v := range m {
		if !slotRE.MatchString(k) || !slotRE.MatchString(v) {
			return nil, apierr.Invalid("state_overrides", fmt.Sprintf("%s: storage slots and values are 0x hex of at most 32 bytes (%q: %q)", a, k, v))
		}
		out[common.HexToHash(k)] = common.HexToHash(v)
	}
	return out, nil
}

// apply writes the overrides into a local state, as go-ethereum's
// override.StateOverride.Apply does for eth_call.
func applyOverrides(st *state.StateDB, over map[common.Address]accountOverride) {
	for a, o := range over {
		if o.Nonce != nil {
			st.SetNonce(a, uint64(*o.Nonce), tracing.NonceChangeUnspecified)
		}
		if o.Code != nil {
			st.SetCode(a, *o.Code, tracing.CodeChangeUnspecified)
		}
		if o.Balance != nil {
			v, _ := uint256.FromBig(o.Balance.ToInt())
			st.SetBalance(a, v, tracing.BalanceChangeUnspecified)
		}
		if o.State != nil {
			st.SetStorage(a, o.State)
		}
		for k, v := range o.StateDiff {
			st.SetState(a, k, v)
		}
	}
}
