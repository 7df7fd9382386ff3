package edgar

import (
	"container/list"
	"time"
)

// entry is a decoded file with what is needed to revalidate it.
type entry struct {
	val          any
	etag         string
	lastModified string
	checked      time.Time // when EDGAR last confirmed it
}

// lru is a least-recently-used map of entries. Not safe for concurrent
// use: Client.mu guards it.
type lru struct {
	max   int
	order *list.List // front: most recent; values are *lruItem
	items map[string]*list.Element
}

type lruItem struct {
	key string
	e   *entry
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: map[string]*list.Element{}}
}

func (l *lru) get(key string) (*entry, bool) {
	el, ok := l.items[key]
	if !ok {
		return nil, false
	}
	l.order.MoveToFront(el)
	return el.Value.(*lruItem).e, true
}

func (l *lru) put(key string, e *entry) {
	if el, ok := l.items[key]; ok {
		el.Value.(*lruItem).e = e
		l.order.MoveToFront(el)
		return
	}
	l.items[key] = l.order.PushFront(&lruItem{key: key, e: e})
	for l.order.Len() > l.max {
		last := l.order.Back()
		l.order.Remove(last)
		delete(l.items, last.Value.(*lruItem).key)
	}
}
