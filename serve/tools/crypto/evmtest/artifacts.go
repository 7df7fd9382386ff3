package evmtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

//go:embed contracts/artifacts.json
var artifactsJSON []byte

// Contract is a compiled test contract.
type Contract struct {
	ABI     abi.ABI
	Bin     []byte // creation code
	Runtime []byte // deployed code
}

var (
	loadOnce  sync.Once
	contracts map[string]*Contract
	loadErr   error
)

// Artifact returns the compiled contract name; it panics on an unknown name,
// a programming error of the test.
func Artifact(name string) *Contract {
	loadOnce.Do(func() { contracts, loadErr = parseArtifacts(artifactsJSON) })
	if loadErr != nil {
		panic(loadErr)
	}
	c, ok := contracts[name]
	if !ok {
		panic(fmt.Sprintf("evmtest: no contract %q", name))
	}
	return c
}

func parseArtifacts(b []byte) (map[string]*Contract, error) {
	var raw struct {
		Contracts map[string]struct {
			ABI     json.RawMessage `json:"abi"`
			Bin     string          `json:"bin"`
			Runtime string          `json:"runtime"`
		} `json:"contracts"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("evmtest: artifacts: %w", err)
	}
	out := map[string]*Contract{}
	for name, c := range raw.Contracts {
		a, err := abi.JSON(strings.NewReader(string(c.ABI)))
		if err != nil {
			return nil, fmt.Errorf("evmtest: %s ABI: %w", name, err)
		}
		bin, err := hexutil.Decode(c.Bin)
		if err != nil {
			return nil, fmt.Errorf("evmtest: %s bin: %w", name, err)
		}
		rt, err := hexutil.Decode(c.Runtime)
		if err != nil {
			return nil, fmt.Errorf("evmtest: %s runtime: %w", name, err)
		}
		out[name] = &Contract{ABI: a, Bin: bin, Runtime: rt}
	}
	return out, nil
}
