package market

import "math/big"

const b58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var b58Index = func() [256]int {
	var t [256]int
	for i := range t {
		t[i] = -1
	}
	for i, c := range b58Alphabet {
		t[c] = i
	}
	return t
}()

// Base58Decode decodes Bitcoin-alphabet base58 (Solana addresses); ok is
// false on a character outside the alphabet.
func Base58Decode(s string) ([]byte, bool) {
	n := new(big.Int)
	b58 := big.NewInt(58)
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	for i := 0; i < len(s); i++ {
		v := b58Index[s[i]]
		if v < 0 {
			return nil, false
		}
		n.Mul(n, b58).Add(n, big.NewInt(int64(v)))
	}
	return append(make([]byte, zeros), n.Bytes()...), true
}

// Base58Encode is the inverse, for Solana account keys in answers.
func Base58Encode(b []byte) string {
	n := new(big.Int).SetBytes(b)
	var out []byte
	b58 := big.NewInt(58)
	mod := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, b58, mod)
		out = append(out, b58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// IsSolanaAddress: base58 of exactly 32 bytes.
func IsSolanaAddress(s string) bool {
	if len(s) < 32 || len(s) > 44 {
		return false
	}
	b, ok := Base58Decode(s)
	return ok && len(b) == 32
}
