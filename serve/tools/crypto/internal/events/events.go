// Package events names the token events the crypto tools read from logs
// and call traces (ERC-20, ERC-721 and ERC-1155 transfers and approvals),
// and the log as nodes give it.
package events

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// The events' topics.
var (
	Transfer       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	Approval       = crypto.Keccak256Hash([]byte("Approval(address,address,uint256)"))
	ApprovalForAll = crypto.Keccak256Hash([]byte("ApprovalForAll(address,address,bool)"))
	TransferSingle = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	TransferBatch  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
)

// Unlimited is the allowance from which an approval counts as unlimited
// (2^255: wallets grant 2^256-1, and some tokens spend from it).
func Unlimited() *big.Int { return new(big.Int).Lsh(big.NewInt(1), 255) }

// Log is a log as eth_getLogs and eth_simulateV1 give it.
type Log struct {
	Address common.Address `json:"address"`
	Topics  []common.Hash  `json:"topics"`
	Data    hexutil.Bytes  `json:"data"`
}
