package search

import "slices"

// What the read server asks of a snapshot's index besides searches
// (serve/archive's searcher), over segments.

// TopicDocs lists the live documents of a topic, in merged numbers,
// increasing.
func (m *Multi) TopicDocs(topic string) []int32 {
	if m.lone != nil {
		return m.lone.TopicDocs(topic)
	}
	if docs, ok := m.liveTopicDocs(topic); ok {
		return docs
	}
	// A damaged list: the others' documents.
	var out []int32
	for _, g := range m.segs {
		for _, d := range g.Index.TopicDocs(topic) {
			if !g.deleted(d) {
				out = append(out, g.Docs[d])
			}
		}
	}
	slices.Sort(out)
	return out
}

// CitedByCount is how many live documents cite doc.
func (m *Multi) CitedByCount(doc int32) int32 {
	if m.lone != nil {
		return m.lone.CitedByCount(doc)
	}
	return m.cites.Count(doc)
}
