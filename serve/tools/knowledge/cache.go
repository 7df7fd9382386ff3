package knowledge

import (
	"sync"
	"time"
)

// cache is a small TTL cache with a size bound; the oldest entry goes
// first when full.
type cache[V any] struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	now   func() time.Time
	items map[string]cacheItem[V]
	order []string
}

type cacheItem[V any] struct {
	v       V
	expires time.Time
}

func newCache[V any](ttl time.Duration, max int, now func() time.Time) *cache[V] {
	return &cache[V]{ttl: ttl, max: max, now: now, items: map[string]cacheItem[V]{}}
}

func (c *cache[V]) get(k string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[k]
	if !ok || c.now().After(it.expires) {
		var zero V
		return zero, false
	}
	return it.v, true
}

func (c *cache[V]) put(k string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; !ok {
		c.order = append(c.order, k)
	}
	c.items[k] = cacheItem[V]{v, c.now().Add(c.ttl)}
	for len(c.items) > c.max && len(c.order) > 0 {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
}
