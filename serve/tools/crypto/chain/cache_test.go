package chain

import (
	"testing"
	"time"
)

func TestCacheLeastRecentlyUsedFirstOut(t *testing.T) {
	now := time.Unix(0, 0)
	c := NewSizedCache(3, 100)
	c.now = func() time.Time { return now }
	has := func(keys ...string) string {
		out := ""
		for _, k := range keys {
			if _, ok := c.Get(k); ok {
				out += k
			} else {
				out += "-"
			}
		}
		return out
	}
	c.Put("a", 1, Forever)
	c.Put("b", 2, Forever)
	c.Put("c", 3, time.Second)
	c.Get("a") // a is now the most recently used: b goes first
	c.Put("d", 4, Forever)
	if got := has("a", "b", "c", "d"); got != "a-cd" {
		t.Errorf("after the fourth entry: %s, want a-cd", got)
	}
	now = now.Add(2 * time.Second) // c expires
	if got := has("c"); got != "-" {
		t.Errorf("expired entry still there")
	}
	// The byte bound: 60 + 50 bytes do not fit in 100, the older goes.
	c.Clear()
	c.PutSized("x", 1, Forever, 60)
	c.PutSized("y", 2, Forever, 50)
	if got := has("x", "y"); got != "-y" {
		t.Errorf("byte bound: %s, want -y", got)
	}
	c.PutSized("y", 3, Forever, 10) // replacing an entry frees its size
	c.PutSized("z", 4, Forever, 80)
	if got := has("y", "z"); got != "yz" || c.bytes != 90 {
		t.Errorf("replaced entry: %s, %d bytes, want yz and 90", got, c.bytes)
	}
}
