// Package crossref reads Crossref work metadata (REST API JSON and public
// data file records) into ingest documents.
//
// [Read] accepts, in one stream:
//
//   - a single-work API response {"status":"ok","message-type":"work","message":{...}};
//   - a list response ("message-type":"work-list", works in message.items),
//     or a bare {"items":[...]} object, or a JSON array of works;
//   - a bare work object, or several one after another;
//   - JSON Lines of any of the above, including MongoDB exports of the
//     public data file ({"_id":{"$oid":...}} wrappers, {"$numberLong":...}
//     and {"$date":...} values).
//
// Large list responses are streamed with json.Decoder tokens: one work is
// in memory at a time, never the whole list. When the input looks like JSON
// Lines (its first or second line is a complete JSON value by itself) it is
// read line by line, so one malformed line becomes a Problem naming its line
// number and reading goes on; otherwise a syntax error ends the file with a
// Problem. Gzip input is detected by its magic bytes and decompressed.
//
// # Licence evidence
//
// Every license[] entry becomes [licence.KindCrossref] evidence from
// [licence.SourceCrossref] with its URL, content-version (vor, am, tdm,
// unspecified) and delay-in-days. Start is the entry's start date-time (or
// date-parts); Crossref's start already includes the delay, so the delay is
// added only when start is missing, to the end of the issued period (a work
// issued "2001-10" is taken as published on 2001-10-31, so an embargo never
// ends early). [licence.Decide] chooses among the entries (vor and
// unspecified count, tdm never does).
//
// # Retractions and corrections
//
// A work whose update-to names another work as retracted, withdrawn or
// removed is a retraction notice: Type "retraction", judged by its own
// licence like any document. A work whose updated-by lists such an update
// is itself retracted (Retracted set, removed from the archive). Corrections
// (update-to correction, erratum, corrigendum) get Type "correction".
// relation[] is not used: its vocabulary (is-preprint-of, has-review...) has
// no retraction link.
//
// Malformed DOIs that embed a resolver URL
// ("10.5424/http://dx.doi.org/10.5424/sjar/20110903-330-10") are repaired to
// the DOI after the last resolver prefix.
//
// # Caps
//
// A record (a line, a list item, a stream-mode value) over 16 MiB, a string
// over 1 MiB, an array over 50,000 elements or nesting over 64 levels is a
// Problem whose reason starts with record_too_large and names the field
// ("record_too_large: reference[50000]: ..."); reading goes on with the
// next line. In stream mode an oversized value ends the file, since JSON
// cannot be resynchronised there. See data/README.md, "Caps".
package crossref
