// Package topics assigns documents to the curated topic taxonomy.
//
// The taxonomy (pipelines/topics.csv: slug, name, parent, description) is a
// two-level tree of about fifty topics: six broad areas (life-sciences,
// health-medicine, physical-sciences, engineering-technology,
// social-sciences, humanities) with their disciplines, plus the fallback
// general-science. The rules (pipelines/topic_rules.csv: slug, kind, match,
// pattern, strength) map the words sources use to those slugs:
//
//   - kind says which field is matched: subject (publisher subject headings,
//     MeSH descriptors, OpenAlex topics/subfields/fields/domains and
//     concepts, all in Document.Subjects), keyword, venue, or any of them.
//   - match is exact (the whole field) or phrase (a run of whole words
//     anywhere in the field). A pattern word ending in "*" matches any word
//     starting with it ("neuro*" matches "neurosciences"); the stem must
//     have at least three characters.
//   - Fields and patterns are compared after folding case and accents and
//     turning punctuation into spaces, so "Saúde Pública" matches
//     "saude publica" and "Alzheimer's disease" matches "alzheimer*".
//   - strength "weak" marks very broad rules (OpenAlex domains, "Biology",
//     "Medicine", a multidisciplinary venue): they count only when no
//     ordinary rule matched.
//
// A document gets the most specific topics that matched: each matched
// field scores its topic (subject 3, venue 2, keyword 1, once per field),
// an ancestor is dropped when one of its descendants matched, and at most
// [MaxTopics] topics are kept, highest score first (ties in table order).
// When nothing matches, the document gets [Fallback], so every published
// document has at least one topic and therefore appears in one bundle.
package topics
