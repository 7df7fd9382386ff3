package x402

import (
	"bytes"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Literal values of docs/x402.md §2.1–2.2 (viem and go-ethereum agree).
const (
	kaKey       = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	kaFrom      = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	kaTo        = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	kaTypeHash  = "0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267"
	kaSeparator = "0x02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f"
	kaDigest    = "0x9d5eea5e200e9d2d8ea84d64f2876571388a6093af3facaa9f330af4ed0c84cd"
	kaSignature = "0x28a451c6b95f2f4e9e623667adb758c502460912f992cdc1b5fda83842020550349cc8ac94c9d455ffc60d49424b583d646d1c24a6923307fac0b9cb622ab57e1b"
)

var baseDomain = Domain{Name: "USD Coin", Version: "2", ChainID: 8453, VerifyingContract: common.HexToAddress(USDCBase)}

func kaAuthorization() Authorization {
	return Authorization{
		From: kaFrom, To: kaTo, Value: "1000", ValidAfter: "0", ValidBefore: "1900000000",
		Nonce: "0x0000000000000000000000000000000000000000000000000000000000000001",
	}
}

func TestKnownAnswerVector(t *testing.T) {
	if got := transferTypeHash.Hex(); got != kaTypeHash {
		t.Errorf("type hash = %s, want %s", got, kaTypeHash)
	}
	sep, err := baseDomain.Separator()
	if err != nil {
		t.Fatal(err)
	}
	if sep.Hex() != kaSeparator {
		t.Errorf("domain separator = %s, want %s", sep.Hex(), kaSeparator)
	}
	a, err := parseAuthorization(kaAuthorization())
	if err != nil {
		t.Fatal(err)
	}
	if got := digest(sep, a).Hex(); got != kaDigest {
		t.Errorf("digest = %s, want %s", got, kaDigest)
	}
	// The reference implementation agrees.
	ref, _, err := apitypes.TypedDataAndHash(baseDomain.TypedData(kaAuthorization()))
	if err != nil {
		t.Fatal(err)
	}
	if got := hexutil.Encode(ref); got != kaDigest {
		t.Errorf("apitypes digest = %s, want %s", got, kaDigest)
	}
	key, err := crypto.HexToECDSA(kaKey)
	if err != nil {
		t.Fatal(err)
	}
	if got := crypto.PubkeyToAddress(key.PublicKey).Hex(); got != kaFrom {
		t.Errorf("key address = %s, want %s", got, kaFrom)
	}
	sig, err := SignAuthorization(key, baseDomain, kaAuthorization())
	if err != nil {
		t.Fatal(err)
	}
	if sig != kaSignature {
		t.Errorf("signature = %s, want %s", sig, kaSignature)
	}
	signer, err := recoverSigner(common.HexToHash(kaDigest), kaSignature)
	if err != nil {
		t.Fatal(err)
	}
	if signer.Hex() != kaFrom {
		t.Errorf("recovered %s, want %s", signer.Hex(), kaFrom)
	}
}

// TestCapturedClientPayload verifies a payload @x402/fetch 2.27.0 sent on
// the wire (docs/x402.md §1.3): a third-party signature must verify.
func TestCapturedClientPayload(t *testing.T) {
	const captured = `{"x402Version":2,"payload":{"authorization":{"from":"0x610d4202134f393a590BA9F3c3cCb6812cb16811","to":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","value":"1000","validAfter":"0","validBefore":"1795343554","nonce":"0x7f73fca1dd8d4773399f64bf6fe8d275f2eea6bd27eec1bee1b3378a509a2e89"},"signature":"0x8c452cacd252501194cb2f30acb0d2b91908e49108ef0cd2e17d461ce2eb675b5525c7e7af67d2f07800e59ef63c33e3c70bc4688f0a49b07931e14b0f1a5f801b"},"resource":{"description":"probe","mimeType":"application/json","url":"http://127.0.0.1:18402/paid"},"accepted":{"scheme":"exact","network":"eip155:8453","amount":"1000","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}}`
	p, err := DecodePaymentHeader(EncodeHeader(jsonRaw(captured)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1795343554-60, 0)
	a, f := checkExact(p.Accepted, p, checkOptions{now: now, maxAhead: 2 * time.Minute})
	if f != nil {
		t.Fatalf("captured payload refused: %v", f)
	}
	if a.From.Hex() != "0x610d4202134f393a590BA9F3c3cCb6812cb16811" {
		t.Errorf("payer %s", a.From.Hex())
	}
	// One changed digit of the value and it no longer verifies.
	p.Payload.Authorization.Value = "1001"
	p.Accepted.Amount = "1001"
	if _, f := checkExact(p.Accepted, p, checkOptions{now: now}); f == nil || f.reason != ReasonInvalidSignature {
		t.Errorf("tampered value: got %v, want %s", f, ReasonInvalidSignature)
	}
}

// TestDigestMatchesAPITypes pins the hand-written digest to go-ethereum's
// generic EIP-712 encoder over random messages and domains.
func TestDigestMatchesAPITypes(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	randHex := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return hexutil.Encode(b)
	}
	randUint := func() string {
		b := make([]byte, 1+r.IntN(32))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return new(big.Int).SetBytes(b).String()
	}
	for i := range 200 {
		d := Domain{Name: fmt.Sprintf("Token %d", i), Version: fmt.Sprint(r.IntN(5)), ChainID: r.Uint64() >> 2,
			VerifyingContract: common.HexToAddress(randHex(20))}
		a := Authorization{From: common.HexToAddress(randHex(20)).Hex(), To: common.HexToAddress(randHex(20)).Hex(),
			Value: randUint(), ValidAfter: randUint(), ValidBefore: randUint(), Nonce: randHex(32)}
		ref, _, err := apitypes.TypedDataAndHash(d.TypedData(a))
		if err != nil {
			t.Fatal(err)
		}
		sep, err := d.Separator()
		if err != nil {
			t.Fatal(err)
		}
		pa, err := parseAuthorization(a)
		if err != nil {
			t.Fatal(err)
		}
		if got := digest(sep, pa); !bytes.Equal(got[:], ref) {
			t.Fatalf("case %d: digest %x, apitypes %x", i, got, ref)
		}
	}
}

func TestRecoverSignerRejects(t *testing.T) {
	dig := common.HexToHash(kaDigest)
	sig := hexutil.MustDecode(kaSignature)
	// s' = n - s is the same signature in high-s form, with v flipped.
	n := crypto.S256().Params().N
	s := new(big.Int).SetBytes(sig[32:64])
	high := append([]byte(nil), sig...)
	new(big.Int).Sub(n, s).FillBytes(high[32:64])
	high[64] ^= 1
	v01 := append([]byte(nil), sig...)
	v01[64] -= 27
	tests := []struct {
		name    string
		sig     string
		wantErr bool
	}{
		{"v 27/28", kaSignature, false},
		{"v 0/1", hexutil.Encode(v01), false},
		{"high s", hexutil.Encode(high), true},
		{"no 0x", kaSignature[2:], true},
		{"short", kaSignature[:130], true},
		{"smart wallet length", kaSignature + "00", true},
		{"not hex", "0x" + string(bytes.Repeat([]byte("zz"), 65)), true},
		{"bad v", kaSignature[:130] + "1d", true},
		{"zero r", "0x" + string(bytes.Repeat([]byte("0"), 64)) + kaSignature[66:], true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := recoverSigner(dig, tt.sig)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("accepted, recovered %s", got.Hex())
				}
				return
			}
			if err != nil || got.Hex() != kaFrom {
				t.Fatalf("got %s, %v; want %s", got.Hex(), err, kaFrom)
			}
		})
	}
}

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{kaFrom, true},
		{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", true},
		{"0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", true},
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267", false}, // bad checksum
		{"0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266", false}, // bad checksum
		{"f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", false},
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226", false},
		{"0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266", false},
		{"", false},
	}
	for _, tt := range tests {
		if _, ok := parseAddress(tt.in); ok != tt.ok {
			t.Errorf("parseAddress(%q) ok = %v, want %v", tt.in, ok, tt.ok)
		}
	}
}

func TestChainIDOf(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"eip155:8453", 8453, true},
		{"eip155:84532", 84532, true},
		{"eip155:", 0, false},
		{"eip155:0", 0, false},
		{"eip155:08453", 0, false},
		{"eip155:-1", 0, false},
		{"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", 0, false},
		{"base", 0, false},
	}
	for _, tt := range tests {
		got, ok := chainIDOf(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("chainIDOf(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
