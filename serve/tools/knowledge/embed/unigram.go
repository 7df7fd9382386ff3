package embed

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// unkPenalty is how much worse than the rarest piece an unknown
// character scores, as in SentencePiece and Hugging Face tokenizers.
const unkPenalty = 10.0

// unigram is a SentencePiece Unigram model: the segmentation of a word
// into pieces with the highest total score (log probability), found by
// Viterbi over a trie of the pieces.
type unigram struct {
	trie         pieceTrie
	scores       []float64        // by id
	ids          map[string]int32 // piece → id (the last one for duplicates, as HF)
	unk          int32
	unkScore     float64
	byteFallback bool
	byteIDs      [256]int32 // <0xNN> pieces, -1 when absent
}

// unigramPiece is one ["piece", score] pair of tokenizer.json's vocab.
type unigramPiece struct {
	piece string
	score float64
}

func (p *unigramPiece) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if len(pair) != 2 {
		return fmt.Errorf("vocab entry %s: want [piece, score]", b)
	}
	if err := json.Unmarshal(pair[0], &p.piece); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &p.score)
}

func newUnigram(vocab []unigramPiece, unk int, byteFallback bool) (*unigram, error) {
	if len(vocab) == 0 {
		return nil, fmt.Errorf("%w: empty Unigram vocabulary", ErrUnsupportedTokenizer)
	}
	if unk < 0 || unk >= len(vocab) {
		return nil, fmt.Errorf("%w: unk_id %d outside the vocabulary of %d", ErrUnsupportedTokenizer, unk, len(vocab))
	}
	u := &unigram{scores: make([]float64, len(vocab)), ids: make(map[string]int32, len(vocab)),
		unk: int32(unk), byteFallback: byteFallback}
	minScore := math.Inf(1)
	for i, p := range vocab {
		u.scores[i] = p.score
		u.ids[p.piece] = int32(i)
		minScore = min(minScore, p.score)
	}
	u.unkScore = minScore - unkPenalty
	for b := range u.byteIDs {
		u.byteIDs[b] = -1
		if id, ok := u.ids[fmt.Sprintf("<0x%02X>", b)]; ok {
			u.byteIDs[b] = id
		}
	}
	u.trie = buildPieceTrie(u.ids)
	return u, nil
}

// bestEnd is the best segmentation of a word's prefix: its score, where
// its last piece starts (-1: not reached yet) and that piece's id.
type bestEnd struct {
	score float64
	start int32
	id    int32
}

// tokenize appends the ids of word's best segmentation. Consecutive
// unknown characters make one unknown token (fuse_unk), or their UTF-8
// bytes as <0xNN> pieces when the model has byte fallback, exactly as
// Hugging Face's Unigram.
// buf, when not nil, is scratch space reused between calls.
func (u *unigram) tokenize(ids []int64, word string, buf *[]bestEnd) []int64 {
	n := len(word)
	if n == 0 {
		return ids
	}
	var best []bestEnd
	if buf != nil && cap(*buf) > n {
		best = (*buf)[:n+1]
	} else {
		best = make([]bestEnd, n+1)
		if buf != nil {
			*buf = best
		}
	}
	for i := range best {
		best[i] = bestEnd{start: -1}
	}
	for start := 0; start < n; {
		_, mblen := utf8.DecodeRuneInString(word[start:])
		base, single := best[start].score, false
		node := int32(0)
		for i := start; i < n; i++ {
			if node = u.trie.child(node, word[i]); node < 0 {
				break
			}
			id := u.trie.id[node]
			if id < 0 {
				continue
			}
			end := i + 1
			if s := base + u.scores[id]; best[end].start < 0 || s > best[end].score {
				best[end] = bestEnd{score: s, start: int32(start), id: id}
			}
			single = single || end-start == mblen
		}
		if !single {
			end := start + mblen
			if s := base + u.unkScore; best[end].start < 0 || s > best[end].score {
				best[end] = bestEnd{score: s, start: int32(start), id: u.unk}
			}
		}
		start += mblen
	}
	// Walk back from the end, then reverse.
	first := len(ids)
	for end := n; end > 0; {
		b := best[end]
		start := int(b.start)
		if b.id == u.unk {
			for start > 0 && best[start].id == u.unk {
				start = int(best[start].start)
			}
			ids = u.appendUnknown(ids, word[start:end])
		} else {
			ids = append(ids, int64(b.id))
		}
		end = start
	}
	slices.Reverse(ids[first:])
	return ids
}

// appendUnknown appends the ids of a run of unknown text, in reverse
// order (tokenize reverses them back).
func (u *unigram) appendUnknown(ids []int64, run string) []int64 {
	if id, ok := u.ids[run]; ok {
		return append(ids, int64(id))
	}
	if u.byteFallback {
		ok := true
		for i := 0; i < len(run) && ok; i++ {
			ok = u.byteIDs[run[i]] >= 0
		}
		if ok {
			for i := len(run) - 1; i >= 0; i-- {
				ids = append(ids, int64(u.byteIDs[run[i]]))
			}
			return ids
		}
	}
	return append(ids, int64(u.unk))
}

// pieceTrie is a byte trie of the pieces in compressed sparse rows: the
// edges of node n are labels/next[first[n]:first[n+1]], sorted by label.
// Node 0 is the root.
type pieceTrie struct {
	first  []int32
	labels []byte
	next   []int32
	id     []int32 // the piece ending at the node, or -1
}

func buildPieceTrie(ids map[string]int32) pieceTrie {
	keys := make([]string, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// Breadth first, so that every node's children get consecutive
	// numbers: node n is the range keys[lo:hi], which share their first d
	// bytes.
	type span struct{ lo, hi, d int }
	var t pieceTrie
	queue := []span{{0, len(keys), 0}}
	for n := 0; n < len(queue); n++ {
		q := queue[n]
		lo, id := q.lo, int32(-1)
		if lo < q.hi && len(keys[lo]) == q.d {
			id = ids[keys[lo]]
			lo++
		}
		t.id = append(t.id, id)
		t.first = append(t.first, int32(len(t.labels)))
		for lo < q.hi {
			c, hi := keys[lo][q.d], lo+1
			for hi < q.hi && keys[hi][q.d] == c {
				hi++
			}
			t.labels = append(t.labels, c)
			t.next = append(t.next, int32(len(queue)))
			queue = append(queue, span{lo, hi, q.d + 1})
			lo = hi
		}
	}
	t.first = append(t.first, int32(len(t.labels)))
	t.id[0] = -1 // an empty piece never matches
	return t
}

// child returns the node reached from n by byte c, or -1.
func (t *pieceTrie) child(n int32, c byte) int32 {
	lo, hi := int(t.first[n]), int(t.first[n+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch l := t.labels[m]; {
		case l == c:
			return t.next[m]
		case l < c:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}
