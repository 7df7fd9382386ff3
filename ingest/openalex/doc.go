// Package openalex reads OpenAlex work objects (snapshot JSON Lines, one work
// per line) into ingest documents.
//
// [Read] streams the input line by line, so a snapshot partition of any size
// runs in bounded memory; blank lines are skipped and a malformed line is
// reported as a Problem naming its line number, after which reading goes on.
// Gzip input is detected by its magic bytes and decompressed.
//
// # Licence evidence
//
// OpenAlex states a licence per location (primary_location,
// best_oa_location, locations[]), and some are wrong: repository copies of
// one journal are attached to unrelated works, and a submitted or accepted
// manuscript's licence says nothing about the version of record. What the
// archive redistributes from an OpenAlex record is the publisher's metadata
// and abstract, and sources.md ranks primary_location above every other
// location, so the reader applies that precedence itself (an Evidence value
// cannot say which location it came from):
//
//   - the primary_location's licence, whatever its version (it is the work
//     itself; the version is passed on as ContentVersion), when it has one;
//   - otherwise the licences of best_oa_location and locations[] entries
//     whose version is "publishedVersion".
//
// Licences of submittedVersion and acceptedVersion copies, and of other
// locations without a version, are never evidence. Repeated (licence,
// version) pairs are recorded once. Every value is [licence.KindOpenAlex]
// evidence from [licence.SourceOpenAlex], left for [licence.Decide] to
// interpret (it ranks OpenAlex below PMC, publisher JATS and Crossref, and
// treats "public-domain" with suspicion).
//
// # Versions of a work
//
// A snapshot may hold several copies of one work (partitions by
// updated_date). Read emits every copy with Document.Updated set from
// updated_date; the merge keeps the newest, as [Newer] decides.
//
// referenced_works are bare OpenAlex ids without citation text, so they are
// not turned into references.
package openalex
