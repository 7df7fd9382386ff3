package chain

import (
	"sync"
	"time"
)

// Cache is a small TTL cache of decoded answers, shared by the tools of a
// chain, so repeated questions within seconds (the same gas figures, the
// same pair address) cost no RPC call.
type Cache struct {
	mu  sync.Mutex
	max int
	m   map[string]cacheEntry
	now func() time.Time
}

type cacheEntry struct {
	v   any
	exp time.Time
}

// NewCache returns a cache holding at most max entries.
func NewCache(max int) *Cache {
	return &Cache{max: max, m: map[string]cacheEntry{}, now: time.Now}
}

// Get returns a live entry.
func (c *Cache) Get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || c.now().After(e.exp) {
		return nil, false
	}
	return e.v, true
}

// Put stores v for ttl; when full, expired entries go first, then
// everything (a crude but bounded policy: entries are cheap to refetch).
func (c *Cache) Put(key string, v any, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		now := c.now()
		for k, e := range c.m {
			if now.After(e.exp) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.max {
			clear(c.m)
		}
	}
	c.m[key] = cacheEntry{v: v, exp: c.now().Add(ttl)}
}

// Clear drops every entry (benchmarks measure cold calls with it).
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}
