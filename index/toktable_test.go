package index

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index/tokenize"
)

// TestTokGroups checks that group puts each token's positions together
// and in order, for fields small and large, one after another on the same
// tokGroups (the table is emptied and grown in between), and that
// nonStop counts the tokens that are not stop words.
func TestTokGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var g tokGroups
	for _, tc := range []struct{ tokens, distinct int }{
		{0, 1}, {1, 1}, {5, 3}, {smallField, 10}, {smallField + 1, 2}, {200, 150},
		{5000, 1200}, {300, 300}, {20000, 40}, {3, 3},
	} {
		t.Run(fmt.Sprintf("%d of %d", tc.tokens, tc.distinct), func(t *testing.T) {
			var tp []tokPos
			for i := range tc.tokens {
				tok := fmt.Sprintf("w%d", rng.IntN(tc.distinct))
				switch tok {
				case "w1":
					tok = "" // not a token tokenize gives, but a string the table must handle
				case "w2":
					tok = "the" // a stop word, for nonStop
				}
				tp = append(tp, tokPos{tok, uint32(i)})
			}
			rng.Shuffle(len(tp), func(i, j int) { tp[i], tp[j] = tp[j], tp[i] })
			wantNonStop := 0
			for _, x := range tp {
				if !tokenize.IsStopWord(x.tok) {
					wantNonStop++
				}
			}
			want := slices.Clone(tp)
			slices.SortFunc(want, func(x, y tokPos) int { return cmp.Or(strings.Compare(x.tok, y.tok), cmp.Compare(x.pos, y.pos)) })
			out, ends := g.group(tp)
			var got []tokPos
			seen := map[string]bool{}
			start := int32(0)
			for _, end := range ends {
				grp := out[start:end]
				if len(grp) == 0 || seen[grp[0].tok] {
					t.Fatalf("group %v empty or its token seen before", grp)
				}
				seen[grp[0].tok] = true
				for _, x := range grp {
					if x.tok != grp[0].tok {
						t.Fatalf("group of %q holds %q", grp[0].tok, x.tok)
					}
				}
				if !slices.IsSortedFunc(grp, byPos) {
					t.Fatalf("positions of %q out of order", grp[0].tok)
				}
				got = append(got, grp...)
				start = end
			}
			if int(start) != len(tp) {
				t.Fatalf("groups cover %d of %d tokens", start, len(tp))
			}
			if n := g.nonStop(); n != wantNonStop {
				t.Errorf("nonStop = %d, want %d", n, wantNonStop)
			}
			slices.SortFunc(got, func(x, y tokPos) int { return cmp.Or(strings.Compare(x.tok, y.tok), cmp.Compare(x.pos, y.pos)) })
			if !slices.Equal(got, want) {
				t.Fatal("grouped tokens differ from the field's")
			}
		})
	}
}

// TestTokTableHash checks that the inline hash of short tokens spreads
// them over a table as a random function would: 5 000 tokens into 16 384
// slots fill about 4 290 distinct ones.
func TestTokTableHash(t *testing.T) {
	tt := tokTable{seed: maphash.MakeSeed(), k0: 0x9e3779b97f4a7c15, k1: 0xc2b2ae3d27d4eb4f}
	for _, format := range []string{"%d", "w%d", "token%d", "a-much-longer-%dx"} {
		seen := map[uint64]bool{}
		for i := range 5000 {
			seen[tt.hash(fmt.Sprintf(format, i))&(1<<14-1)] = true
		}
		if len(seen) < 4100 {
			t.Errorf("%q: %d distinct slots of 5000 tokens", format, len(seen))
		}
	}
}
