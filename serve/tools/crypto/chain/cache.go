package chain

import (
	"container/list"
	"sync"
	"time"
)

// Cache is a bounded cache of decoded answers, shared by the tools of a
// chain: facts that cannot change (a token's decimals, a pair's address,
// a balance slot) are kept until the least recently used go first, facts
// that may change (gas figures, a contract's proxy slots) for their TTL.
type Cache struct {
	mu  sync.Mutex
	max int
	// maxBytes bounds the sum of the sizes given to PutSized (0: none).
	maxBytes, bytes int
	ll              *list.List // front: most recently used
	m               map[string]*list.Element
	now             func() time.Time
}

type cacheEntry struct {
	key  string
	v    any
	exp  time.Time // zero: no expiry
	size int
}

// Forever is the TTL of a fact that cannot change.
const Forever time.Duration = 0

// NewCache returns a cache holding at most max entries.
func NewCache(max int) *Cache {
	return &Cache{max: max, ll: list.New(), m: map[string]*list.Element{}, now: time.Now}
}

// NewSizedCache returns a cache holding at most max entries whose sizes
// (PutSized) add up to at most maxBytes.
func NewSizedCache(max, maxBytes int) *Cache {
	c := NewCache(max)
	c.maxBytes = maxBytes
	return c
}

// Get returns a live entry.
func (c *Cache) Get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !e.exp.IsZero() && c.now().After(e.exp) {
		c.remove(el)
		return nil, false
	}
	c.ll.MoveToFront(el)
	return e.v, true
}

// Put stores v for ttl (Forever: until evicted); when full, the least
// recently used entry goes.
func (c *Cache) Put(key string, v any, ttl time.Duration) { c.PutSized(key, v, ttl, 0) }

// PutSized is Put of a value of size bytes, counted against the cache's
// byte bound.
func (c *Cache) PutSized(key string, v any, ttl time.Duration, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var exp time.Time
	if ttl != Forever {
		exp = c.now().Add(ttl)
	}
	if el, ok := c.m[key]; ok {
		c.remove(el)
	}
	c.m[key] = c.ll.PushFront(&cacheEntry{key: key, v: v, exp: exp, size: size})
	c.bytes += size
	for c.ll.Len() > c.max || c.maxBytes > 0 && c.bytes > c.maxBytes && c.ll.Len() > 1 {
		c.remove(c.ll.Back())
	}
}

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.ll.Remove(el)
	delete(c.m, e.key)
	c.bytes -= e.size
}

// Len is the number of entries held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Clear drops every entry (benchmarks measure cold calls with it).
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.m)
	c.bytes = 0
}
