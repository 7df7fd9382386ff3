package embed

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// ErrBadCharsmap means a Precompiled normalizer's precompiled_charsmap is
// not a valid SentencePiece charsmap.
var ErrBadCharsmap = errors.New("embed: invalid precompiled_charsmap")

// precompiled is SentencePiece's compiled normalisation rules (for the
// XLM-R family, nmt_nfkc: NFKC plus SentencePiece's own mappings), as
// the Precompiled normalizer of a tokenizer.json carries them.
//
// The blob is a little-endian uint32 giving the byte size of a
// darts-clone double-array trie, that trie (uint32 units), then the
// normalised strings, each ending in a NUL byte. The trie maps a UTF-8
// key to the offset of its replacement in the strings.
type precompiled struct {
	trie       []uint32
	normalized string
}

func parsePrecompiled(b64 string) (*precompiled, error) {
	blob, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCharsmap, err)
	}
	if len(blob) < 4 {
		return nil, fmt.Errorf("%w: %d bytes", ErrBadCharsmap, len(blob))
	}
	size := int(binary.LittleEndian.Uint32(blob))
	if size%4 != 0 || size == 0 || size > len(blob)-4 {
		return nil, fmt.Errorf("%w: trie of %d bytes in a blob of %d", ErrBadCharsmap, size, len(blob))
	}
	p := &precompiled{trie: make([]uint32, size/4), normalized: string(blob[4+size:])}
	for i := range p.trie {
		p.trie[i] = binary.LittleEndian.Uint32(blob[4+4*i:])
	}
	if !utf8.ValidString(p.normalized) {
		return nil, fmt.Errorf("%w: normalized strings are not UTF-8", ErrBadCharsmap)
	}
	return p, nil
}

// Fields of a darts-clone unit.
func unitHasLeaf(u uint32) bool  { return u>>8&1 == 1 }
func unitValue(u uint32) uint32  { return u & (1<<31 - 1) }
func unitLabel(u uint32) uint32  { return u & (1<<31 | 0xff) }
func unitOffset(u uint32) uint32 { return u >> 10 << ((u & (1 << 9)) >> 6) }

// firstMatch returns the value of the shortest key of the trie that is a
// prefix of s. Hugging Face's Precompiled normalizer takes the first
// result of the common-prefix search, which is the shortest; this
// mirrors it rather than SentencePiece's longest match. A malformed trie
// yields no match instead of reading out of range.
func (p *precompiled) firstMatch(s string) (uint32, bool) {
	t := p.trie
	pos := unitOffset(t[0])
	for i := 0; i < len(s); i++ {
		c := uint32(s[i])
		if c == 0 {
			break
		}
		pos ^= c
		if int(pos) >= len(t) {
			return 0, false
		}
		u := t[pos]
		if unitLabel(u) != c {
			return 0, false
		}
		pos ^= unitOffset(u)
		if unitHasLeaf(u) {
			if int(pos) >= len(t) {
				return 0, false
			}
			return unitValue(t[pos]), true
		}
	}
	return 0, false
}

// transform returns the replacement of the chunk, if the trie has one.
func (p *precompiled) transform(chunk string) (string, bool) {
	v, ok := p.firstMatch(chunk)
	if !ok || int(v) > len(p.normalized) {
		return "", false
	}
	rest := p.normalized[v:]
	if i := strings.IndexByte(rest, 0); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// normalize applies the charsmap as Hugging Face tokenizers does: per
// extended grapheme cluster, the whole cluster when it is shorter than 6
// bytes and has a replacement, otherwise code point by code point.
func (p *precompiled) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for state := -1; len(s) > 0; {
		var cluster string
		cluster, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		if len(cluster) < 6 {
			if r, ok := p.transform(cluster); ok {
				b.WriteString(r)
				continue
			}
		}
		for i := 0; i < len(cluster); {
			_, n := utf8.DecodeRuneInString(cluster[i:]) // n is 1 for invalid UTF-8, kept as is
			part := cluster[i : i+n]
			i += n
			if r, ok := p.transform(part); ok {
				b.WriteString(r)
			} else {
				b.WriteString(part)
			}
		}
	}
	return b.String()
}
