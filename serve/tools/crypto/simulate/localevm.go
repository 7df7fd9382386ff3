package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	// Registers the callTracer the local EVM records its call tree with.
	_ "github.com/ethereum/go-ethereum/eth/tracers/native"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// errStateBudget is a local execution that needed more state reads than
// one simulation may make.
var errStateBudget = errors.New("crypto: the local EVM hit its bound on state reads")

// defaultSimGas is the gas of a simulation without a gas input: go-ethereum's
// default RPC gas cap, what eth_call gives such calls.
const defaultSimGas = 50_000_000

// header is the pinned block a simulation runs on.
type header struct {
	Number        hexutil.Uint64  `json:"number"`
	Hash          common.Hash     `json:"hash"`
	Time          hexutil.Uint64  `json:"timestamp"`
	GasLimit      hexutil.Uint64  `json:"gasLimit"`
	BaseFee       *hexutil.Big    `json:"baseFeePerGas"`
	Miner         common.Address  `json:"miner"`
	MixHash       common.Hash     `json:"mixHash"`
	Difficulty    *hexutil.Big    `json:"difficulty"`
	ExcessBlobGas *hexutil.Uint64 `json:"excessBlobGas"`
	SlotNumber    *hexutil.Uint64 `json:"slotNumber"`
}

func (h *header) tag() string { return hexutil.EncodeUint64(uint64(h.Number)) }

// rpcState reads accounts and storage of one block from the node, lazily,
// for go-ethereum's state.StateDB (it implements state.Reader). An account
// is one eth_getProof (with the account's slots asked with it), then
// eth_getCode when it has code (fetchProofs); on a node without
// eth_getProof, one batch of eth_getBalance, eth_getTransactionCount and
// eth_getCode. A slot of an account already read is one eth_getStorageAt
// unless prefetched. The EVM calls it
// synchronously without a context, so it carries the simulation's.
type rpcState struct {
	ctx   context.Context
	c     *chain.EVM
	block string
	limit int // RPC calls allowed

	mu       sync.Mutex
	calls    int
	err      error
	accounts map[common.Address]*types.StateAccount // nil: no such account
	code     map[common.Address][]byte
	slots    map[common.Address]map[common.Hash]common.Hash
}

func newRPCState(ctx context.Context, c *chain.EVM, block string, limit int) *rpcState {
	return &rpcState{ctx: ctx, c: c, block: block, limit: limit, accounts: map[common.Address]*types.StateAccount{},
		code: map[common.Address][]byte{}, slots: map[common.Address]map[common.Hash]common.Hash{}}
}

// spend reserves n RPC calls of the budget.
func (s *rpcState) spend(n int) error {
	if s.err != nil {
		return s.err
	}
	if s.calls+n > s.limit {
		s.err = fmt.Errorf("%w (%d calls)", errStateBudget, s.limit)
		return s.err
	}
	s.calls += n
	return nil
}

// acct is an account read from the node.
type acct struct {
	a     common.Address
	bal   hexutil.Big
	nonce hexutil.Uint64
	code  hexutil.Bytes
}

// fetchProofs reads the accounts as and their slots (those of other
// accounts are left to fetchAccounts) with one eth_getProof each, which
// answers balance, nonce, code hash and slots in one call, then the code
// of those with code in a second batch: an account costs one call, or two
// with code, instead of three and one per slot. done is false, and nothing
// is spent, when the node does not offer eth_getProof.
func (s *rpcState) fetchProofs(as []*acct, slots map[common.Address][]common.Hash) (done bool, err error) {
	type proof struct {
		Balance  hexutil.Big    `json:"balance"`
		Nonce    hexutil.Uint64 `json:"nonce"`
		CodeHash common.Hash    `json:"codeHash"`
		Storage  []struct {
			Key   common.Hash `json:"key"`
			Value hexutil.Big `json:"value"`
		} `json:"storageProof"`
	}
	ps := make([]proof, len(as))
	b := make([]rpc.BatchElem, len(as))
	for i, x := range as {
		keys := slots[x.a]
		if keys == nil {
			keys = []common.Hash{}
		}
		b[i] = rpc.BatchElem{Method: "eth_getProof", Args: []any{x.a, keys, s.block}, Result: &ps[i]}
	}
	if err := s.spend(len(b)); err != nil {
		return false, err
	}
	if err := s.batch(b); err != nil {
		if errors.Is(err, chain.ErrMethodNotFound) {
			s.calls -= len(b)
			return false, nil
		}
		return false, err
	}
	var codes []rpc.BatchElem
	for i, x := range as {
		p := ps[i]
		x.bal, x.nonce = p.Balance, p.Nonce
		if p.CodeHash != (common.Hash{}) && p.CodeHash != types.EmptyCodeHash {
			codes = append(codes, rpc.BatchElem{Method: "eth_getCode", Args: []any{x.a, s.block}, Result: &x.code})
		}
		if len(p.Storage) != len(slots[x.a]) {
			return false, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", s.c.Chain.Name+": eth_getProof answered the wrong number of slots")
		}
		for j, st := range p.Storage {
			if s.slots[x.a] == nil {
				s.slots[x.a] = map[common.Hash]common.Hash{}
			}
			s.slots[x.a][slots[x.a][j]] = common.BigToHash(st.Value.ToInt())
		}
		delete(slots, x.a)
	}
	if len(codes) > 0 {
		if err := s.spend(len(codes)); err != nil {
			return false, err
		}
		if err := s.batch(codes); err != nil {
			return false, err
		}
	}
	s.keepAccounts(as)
	if len(slots) > 0 {
		return true, s.fetchAccounts(nil, slots)
	}
	return true, nil
}

// batch sends b in JSON-RPC batches of at most 100 calls; the first
// failed call's error is returned.
func (s *rpcState) batch(b []rpc.BatchElem) error {
	for i := 0; i < len(b); i += 100 {
		part := b[i:min(i+100, len(b))]
		if err := s.c.Batch(s.ctx, part); err != nil {
			return err
		}
		for _, e := range part {
			if e.Error != nil {
				return e.Error
			}
		}
	}
	return nil
}

// keepAccounts records accounts read from the node (nil: no such account).
func (s *rpcState) keepAccounts(as []*acct) {
	for _, x := range as {
		if x.bal.ToInt().Sign() == 0 && x.nonce == 0 && len(x.code) == 0 {
			s.accounts[x.a] = nil
			continue
		}
		bal, _ := uint256.FromBig(x.bal.ToInt())
		hash := types.EmptyCodeHash
		if len(x.code) > 0 {
			hash = crypto.Keccak256Hash(x.code)
			s.code[x.a] = x.code
		}
		s.accounts[x.a] = &types.StateAccount{Nonce: uint64(x.nonce), Balance: bal, Root: types.EmptyRootHash, CodeHash: hash.Bytes()}
	}
}

// fetchAccounts reads the accounts not yet known and the given slots in
// JSON-RPC batches of at most 100 calls.
func (s *rpcState) fetchAccounts(addrs []common.Address, slots map[common.Address][]common.Hash) error {
	type slot struct {
		a common.Address
		k common.Hash
		v common.Hash
	}
	var as []*acct
	want := map[common.Address]bool{}
	for _, a := range addrs {
		if _, ok := s.accounts[a]; !ok && !want[a] {
			want[a] = true
			as = append(as, &acct{a: a})
		}
	}
	var ss []*slot
	for a, ks := range slots {
		for _, k := range ks {
			if _, ok := s.slots[a][k]; !ok {
				ss = append(ss, &slot{a: a, k: k})
			}
		}
	}
	if len(as) > 0 {
		done, err := s.fetchProofs(as, slots)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	var b []rpc.BatchElem
	for _, x := range as {
		b = append(b, rpc.BatchElem{Method: "eth_getBalance", Args: []any{x.a, s.block}, Result: &x.bal},
			rpc.BatchElem{Method: "eth_getTransactionCount", Args: []any{x.a, s.block}, Result: &x.nonce},
			rpc.BatchElem{Method: "eth_getCode", Args: []any{x.a, s.block}, Result: &x.code})
	}
	for _, x := range ss {
		b = append(b, rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{x.a, x.k, s.block}, Result: &x.v})
	}
	if err := s.spend(len(b)); err != nil {
		return err
	}
	if err := s.batch(b); err != nil {
		return err
	}
	s.keepAccounts(as)
	for _, x := range ss {
		if s.slots[x.a] == nil {
			s.slots[x.a] = map[common.Hash]common.Hash{}
		}
		s.slots[x.a][x.k] = x.v
	}
	return nil
}

// Account implements state.Reader.
func (s *rpcState) Account(a common.Address) (*types.StateAccount, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.accounts[a]; !ok {
		if err := s.fetchAccounts([]common.Address{a}, nil); err != nil {
			return nil, err
		}
	}
	if acc := s.accounts[a]; acc != nil {
		return acc.Copy(), nil
	}
	return nil, nil
}

// Storage implements state.Reader.
func (s *rpcState) Storage(a common.Address, k common.Hash) (common.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.slots[a][k]; ok {
		return v, nil
	}
	if err := s.fetchAccounts(nil, map[common.Address][]common.Hash{a: {k}}); err != nil {
		return common.Hash{}, err
	}
	return s.slots[a][k], nil
}

// Has, Code and CodeSize implement state.ContractCodeReader: code comes
// with the account.
func (s *rpcState) Has(a common.Address, _ common.Hash) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.code[a]
	return ok
}

func (s *rpcState) Code(a common.Address, _ common.Hash) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code[a]
}

func (s *rpcState) CodeSize(a common.Address, h common.Hash) int { return len(s.Code(a, h)) }

// blockHash serves BLOCKHASH: one eth_getBlockByNumber per block asked.
func (s *rpcState) blockHash(n uint64) common.Hash {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spend(1) != nil {
		return common.Hash{}
	}
	var h struct {
		Hash common.Hash `json:"hash"`
	}
	if err := s.c.Call(s.ctx, &h, "eth_getBlockByNumber", hexutil.EncodeUint64(n), false); err != nil {
		s.err = err
	}
	return h.Hash
}

// prefetch asks the node which accounts and slots the call touches
// (eth_createAccessList) and reads them all in batches, so the execution
// itself rarely waits for the node. Nodes without it, or a call it cannot
// run, leave everything to lazy reads. The block's coinbase, which the
// execution touches to pay the fee, is read with them.
func (s *rpcState) prefetch(msg chain.CallArgs, over map[common.Address]accountOverride, coinbase common.Address) {
	var res struct {
		AccessList types.AccessList `json:"accessList"`
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spend(1) != nil {
		return
	}
	args := []any{msg, s.block}
	if len(over) > 0 {
		args = append(args, over)
	}
	if err := s.c.Call(s.ctx, &res, "eth_createAccessList", args...); err != nil {
		return
	}
	addrs := []common.Address{*msg.From, *msg.To, coinbase}
	slots := map[common.Address][]common.Hash{}
	n := 0
	for _, t := range res.AccessList {
		addrs = append(addrs, t.Address)
		if len(t.StorageKeys) > 0 {
			slots[t.Address] = append(slots[t.Address], t.StorageKeys...)
			n += len(t.StorageKeys)
		}
	}
	if len(addrs)*3+n > s.limit-s.calls {
		return // leave the budget to the lazy reads
	}
	if err := s.fetchAccounts(addrs, slots); err != nil && !errors.Is(err, errStateBudget) {
		s.err = nil // a failed prefetch is not fatal: reads retry lazily
	}
}

// localTrace executes msg on a local EVM over the block's state fetched
// from the node, with the overrides applied, and records the call tree
// with go-ethereum's callTracer (the tracer debug_traceCall runs), so both
// paths give the same answer. It returns the tree and the RPC calls spent.
func localTrace(ctx context.Context, c *chain.EVM, msg chain.CallArgs, over map[common.Address]accountOverride, h *header, limit int) (*callFrame, int, error) {
	reader := newRPCState(ctx, c, h.tag(), limit)
	reader.prefetch(msg, over, h.Miner)
	st, err := state.NewWithReader(types.EmptyRootHash, state.NewDatabaseForTesting(), reader)
	if err != nil {
		return nil, reader.calls, err
	}
	applyOverrides(st, over)
	cfg := evmConfig(c.Chain.ChainID)
	tr, err := tracers.DefaultDirectory.New("callTracer", new(tracers.Context), json.RawMessage(`{"withLog":true}`), cfg)
	if err != nil {
		return nil, reader.calls, err
	}
	bctx := vm.BlockContext{CanTransfer: core.CanTransfer, Transfer: core.Transfer, GetHash: reader.blockHash,
		Coinbase: h.Miner, GasLimit: uint64(h.GasLimit), BlockNumber: new(big.Int).SetUint64(uint64(h.Number)),
		Time: uint64(h.Time), Difficulty: new(big.Int), BaseFee: new(big.Int), BlobBaseFee: new(big.Int),
		CostPerStateByte: params.CostPerStateByte}
	if h.SlotNumber != nil {
		bctx.SlotNum = uint64(*h.SlotNumber)
	}
	if h.Difficulty != nil {
		bctx.Difficulty = h.Difficulty.ToInt()
	}
	if bctx.Difficulty.Sign() == 0 {
		mix := h.MixHash
		bctx.Random = &mix
	}
	gas := uint64(defaultSimGas)
	if msg.Gas != nil {
		gas = uint64(*msg.Gas)
	}
	val := new(uint256.Int)
	if msg.Value != nil {
		val, _ = uint256.FromBig(msg.Value.ToInt())
	}
	m := (&core.Message{From: *msg.From, To: msg.To, Nonce: st.GetNonce(*msg.From), Value: val, GasLimit: gas,
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int), Data: msg.Data}).
		SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck().SkipExecutionGasCapCheck()
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: m.Nonce, Gas: gas, To: msg.To, Value: msg.Value.ToInt(), Data: msg.Data})
	evm := vm.NewEVM(bctx, state.NewHookedState(st, tr.Hooks), cfg, vm.Config{Tracer: tr.Hooks, NoBaseFee: true})
	defer evm.Release()
	stop := context.AfterFunc(ctx, evm.Cancel)
	defer stop()
	_, _, err = core.ApplyTransactionWithEVM(ctx, m, core.NewGasPool(gas), st, bctx.BlockNumber, h.Hash, bctx.Time, tx, evm)
	reader.mu.Lock()
	calls, rerr := reader.calls, reader.err
	reader.mu.Unlock()
	switch {
	case rerr != nil: // state the execution needed could not be read: its result means nothing
		return nil, calls, rerr
	case ctx.Err() != nil:
		return nil, calls, ctx.Err()
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		return nil, calls, err
	case err != nil:
		return nil, calls, apierr.New(apierr.ErrUpstream, "simulation_failed", c.Chain.Name+": the local EVM could not run the call: "+err.Error())
	}
	raw, err := tr.GetResult()
	if err != nil {
		return nil, calls, err
	}
	var f callFrame
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, calls, err
	}
	return &f, calls, nil
}

// evmConfig returns the fork rules of a chain: Ethereum mainnet's own
// schedule (forks by block time), go-ethereum's dev-chain rules for chain
// 1337 (geth --dev and its simulated backend), else every fork through
// Prague active, what the L2s of the configuration run.
func evmConfig(id uint64) *params.ChainConfig {
	switch id {
	case 1:
		return params.MainnetChainConfig
	case params.AllDevChainProtocolChanges.ChainID.Uint64():
		return params.AllDevChainProtocolChanges
	}
	cfg := *params.MergedTestChainConfig
	cfg.ChainID = new(big.Int).SetUint64(id)
	cfg.OsakaTime, cfg.BogotaTime = nil, nil
	return &cfg
}
