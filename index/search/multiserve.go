package search

import (
	"errors"
	"slices"
)

// What the read server asks of a snapshot's index besides searches
// (serve/archive's searcher), over segments.

// TopicDocs lists the live documents of a topic, in merged numbers,
// increasing.
func (m *Multi) TopicDocs(topic string) []int32 {
	if m.lone != nil {
		return m.lone.TopicDocs(topic)
	}
	if v, ok := m.topicDocs.Load(topic); ok {
		return v.([]int32)
	}
	var out []int32
	for _, g := range m.segs {
		for _, d := range g.Index.TopicDocs(topic) {
			if !g.deleted(d) {
				out = append(out, g.Docs[d])
			}
		}
	}
	slices.Sort(out)
	v, _ := m.topicDocs.LoadOrStore(topic, out)
	return v.([]int32)
}

// CitedByCount is how many live documents cite doc.
func (m *Multi) CitedByCount(doc int32) int32 {
	if m.lone != nil {
		return m.lone.CitedByCount(doc)
	}
	return m.cites.Count(doc)
}

// Close closes the segments' indexes: a Multi owns them.
func (m *Multi) Close() error {
	if m.lone != nil {
		return m.lone.Close()
	}
	var errs []error
	for _, g := range m.segs {
		errs = append(errs, g.Index.Close())
	}
	return errors.Join(errs...)
}
