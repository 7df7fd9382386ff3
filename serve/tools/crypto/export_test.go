package crypto

import (
	"encoding/binary"
)

// WhirlpoolPDA exposes the pool address derivation to the external tests
// (mints already in order).
func WhirlpoolPDA(program, config, a, b string, ts uint16) string {
	p, _ := base58Decode(program)
	c, _ := base58Decode(config)
	x, _ := base58Decode(a)
	y, _ := base58Decode(b)
	pda, ok := findPDA(p, []byte("whirlpool"), c, x, y, binary.LittleEndian.AppendUint16(nil, ts))
	if !ok {
		return ""
	}
	return base58Encode(pda)
}
