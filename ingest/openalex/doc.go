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
// one journal are attached to unrelated works. The reader records every
// location's licence as [licence.KindOpenAlex] evidence from
// [licence.SourceOpenAlex], with the location's version as ContentVersion
// and its field as Path ("locations[2].license"); repeated (licence,
// version) pairs are recorded once. [licence.Decide] judges the version that
// is served: the publishedVersion locations' licences when there are any
// (all of them: one restrictive value rejects, and other versions' licences
// are then ignored, which is why a wrong SHILAP submittedVersion copy does
// not matter), else the licences of the acceptedVersion and
// submittedVersion locations (a work whose only open copy is its preprint
// or accepted manuscript is served as that version). Restrictions on a
// location without a version veto; permissive values there prove nothing.
// OpenAlex ranks below PMC, publisher JATS and Crossref, and "public-domain"
// is treated with suspicion.
//
// # Versions of a work
//
// A snapshot may hold several copies of one work (partitions by
// updated_date). Read emits every copy with Document.Updated set from
// updated_date; the merge keeps the newest, as [Newer] decides.
//
// referenced_works are bare OpenAlex ids without citation text, so they are
// not turned into references.
//
// # Caps
//
// A line over 16 MiB, a string over 1 MiB, an array over 50,000 elements or
// nesting over 64 levels is a Problem whose reason contains
// record_too_large and names the field; reading goes on with the next line
// (data/README.md, "Caps").
package openalex
