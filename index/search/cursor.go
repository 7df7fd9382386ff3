package search

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
)

// cursorPos is where a page ended: the sort, the last hit's sort key and
// doc (search-after).
type cursorPos struct {
	sort Sort
	key  float64
	doc  int32
}

// cursorVersion is the first byte of every cursor.
const cursorVersion = 1

// encodeCursor makes an opaque, URL-safe cursor: version, kind ('q' a
// search, 'c' a cited-by list), the snapshot id, the sort, the key's
// bits and the doc, base64url without padding.
func encodeCursor(snap string, kind byte, c cursorPos) string {
	b := []byte{cursorVersion, kind}
	b = binary.AppendUvarint(b, uint64(len(snap)))
	b = append(b, snap...)
	b = append(b, byte(c.sort))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c.key))
	b = binary.AppendUvarint(b, uint64(c.doc))
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor of the given kind: ErrCursorInvalid if it
// does not decode, ErrCursorExpired if a snapshot other than serving made
// it.
func decodeCursor(serving, s string, kind byte) (cursorPos, error) {
	bad := func(why string) (cursorPos, error) { return cursorPos{}, fmt.Errorf("%w: %s", ErrCursorInvalid, why) }
	if len(s) > 512 {
		return bad("too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return bad("not base64url")
	}
	if len(b) < 2 || b[0] != cursorVersion || b[1] != kind {
		return bad("unknown version or kind")
	}
	b = b[2:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return bad("truncated")
	}
	snap := string(b[k : k+int(n)])
	b = b[k+int(n):]
	if len(b) < 1+8 {
		return bad("truncated")
	}
	c := cursorPos{sort: Sort(b[0]), key: math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))}
	b = b[9:]
	d, k := binary.Uvarint(b)
	if k <= 0 || k != len(b) || d >= math.MaxInt32 || c.sort > ByCitedBy || math.IsNaN(c.key) {
		return bad("malformed")
	}
	c.doc = int32(d)
	if snap != serving {
		return cursorPos{}, fmt.Errorf("%w (made for snapshot %s, serving %s)", ErrCursorExpired, snap, serving)
	}
	return c, nil
}
