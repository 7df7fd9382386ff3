// Package corpus generates large synthetic corpora from the real fixture
// documents, for benchmarks of the read server at millions of documents.
//
// A [Vocabulary] is read from real records (the fixture corpus, through the
// same readers `openshelf ingest` uses): the words of titles and abstracts,
// keyword phrases, given and family names, venues, publishers and
// affiliations, each ranked by how often the fixtures use it. Real corpora
// have a long tail of rare words that a few hundred records cannot show, so
// each list is extended with synthetic entries made by splicing real ones
// ("neuro" + "kinase"), ranked after every real entry.
//
// A [Generator] makes document i from the vocabulary alone, with a random
// source seeded by (seed, i): the same i always gives the same document,
// and documents can be made in any order and in parallel. Words, names and
// phrases are drawn with Zipf-like (power-law) probabilities over their
// ranks, so common words get posting lists of hundreds of thousands of
// documents and tail words a handful, as in real bibliographic data. Ids
// are pmc-<n> with n = 10 000 000 + i, so ids increase with i both as
// numbers and as strings (the order index.Builder requires). Topics come
// from the real taxonomy, licences from real licence decisions of the
// accepted families; a share of the documents get (short) full text and
// references.
//
// [Build] feeds N documents straight into index.NewBuilder and publishes a
// fresh snapshot: it measures the server, not the XML readers. With
// BuildConfig.Segments it publishes them as segments, the first 55 % in a
// full build and the rest in delta builds, as an archive's nights do.
//
// [WriteJATS] makes the other kind of corpus, for the ingest benchmark
// (`openshelf bench ingest`): JATS files on disk, copies of the CC-BY and
// CC0 fixture articles with unique ids and perturbed titles (see jats.go),
// so that the whole ingest pipeline runs on them.
package corpus
