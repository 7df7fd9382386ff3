package geo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// tzLookup answers "which IANA zone is this point in" from
// @photostructure/tz-lookup's tz.js (CC0-1.0; its shapes are a coarse
// quadtree derived from timezone-boundary-builder). The file is a
// JavaScript function holding a packed tree string X and a zone list T;
// lookup below is that function's algorithm, transcribed.
type tzLookup struct {
	tree  string
	zones []string
}

// The constants of the pinned tz.js (11.7.0): a 48 x 24 root grid, two
// characters per node in base 56 with an offset of 1995, child nodes from
// character 2304, and 3136 node codes of which the top len(zones) are
// leaves. readTZ checks that the file still has this shape.
const (
	tzRootCols   = 48
	tzRootRows   = 24
	tzBase       = 56
	tzOffset     = 1995
	tzChildStart = 2304
	tzCodes      = 3136
)

var tzSignature = []byte(`S=48*(180+W)/360.00000000000006,U=24*(90-Y)/180.00000000000003,Z=0|S,$=0|U,K=96*$+2*Z,K=56*X.charCodeAt(K)+X.charCodeAt(K+1)-1995;K+T.length<3136;)K=56*X.charCodeAt(K=8*(V=V+K+1)+4*($=0|(U=2*(U-$)%2))+2*(Z=0|(S=2*(S-Z)%2))+2304)+X.charCodeAt(K+1)-1995;return T[K+T.length-3136]`)

func readTZ(dir string) (*tzLookup, error) {
	b, err := os.ReadFile(filepath.Join(dir, tzJS))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
	}
	if !bytes.Contains(b, tzSignature) {
		return nil, fmt.Errorf("%w: tz.js has an unknown layout (not tz-lookup 11.x)", ErrData)
	}
	_, rest, ok1 := bytes.Cut(b, []byte(`var X=`))
	x, rest, ok2 := bytes.Cut(rest, []byte(`,T=`))
	t, _, ok3 := bytes.Cut(rest, []byte(`;if(`))
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("%w: tz.js: cannot find the tree and zone list", ErrData)
	}
	tz := &tzLookup{}
	// Both literals are valid JSON: a plain ASCII string and an array of strings.
	if err := json.Unmarshal(x, &tz.tree); err != nil {
		return nil, fmt.Errorf("%w: tz.js tree: %v", ErrData, err)
	}
	if err := json.Unmarshal(t, &tz.zones); err != nil {
		return nil, fmt.Errorf("%w: tz.js zones: %v", ErrData, err)
	}
	if len(tz.tree) < tzChildStart || len(tz.zones) == 0 || len(tz.zones) > tzCodes {
		return nil, fmt.Errorf("%w: tz.js: implausible sizes", ErrData)
	}
	return tz, nil
}

// lookup returns the zone at (lat, lon), or "" for coordinates out of
// range or a corrupt tree.
func (t *tzLookup) lookup(lat, lon float64) string {
	if !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) {
		return ""
	}
	if lat >= 90 {
		return "Etc/GMT"
	}
	// The odd divisors keep 180 and -90 inside the last cell, as in tz.js.
	x := tzRootCols * (180 + lon) / 360.00000000000006
	y := tzRootRows * (90 - lat) / 180.00000000000003
	col, row := int(x), int(y)
	node := -1
	k := t.code(2*tzRootCols*row + 2*col)
	for k+len(t.zones) < tzCodes {
		node = node + k + 1
		y = mod2(2 * (y - float64(row)))
		x = mod2(2 * (x - float64(col)))
		row, col = int(y), int(x)
		k = t.code(8*node + 4*row + 2*col + tzChildStart)
		if k < -len(t.zones) { // corrupt tree: out of range
			return ""
		}
	}
	i := k + len(t.zones) - tzCodes
	if i < 0 || i >= len(t.zones) {
		return ""
	}
	return t.zones[i]
}

// code reads the base-56 pair at i.
func (t *tzLookup) code(i int) int {
	if i < 0 || i+1 >= len(t.tree) {
		return -1 << 30
	}
	return tzBase*int(t.tree[i]) + int(t.tree[i+1]) - tzOffset
}

// mod2 is JavaScript's x % 2 for the non-negative values used here.
func mod2(x float64) float64 {
	for x >= 2 {
		x -= 2
	}
	return x
}
