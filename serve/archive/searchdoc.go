package archive

// searchDescription documents /api/search in the OpenAPI description and
// /llms.txt; docs/search.md says the same at length.
const searchDescription = `Query language (q, at most 200 characters; case- and accent-insensitive):

- heart failure: every word must match (AND is the default)
- "heart failure": an exact phrase, words adjacent and in order; stop words count inside phrases
- heart OR cardiac: either; (heart OR cardiac) failure: parentheses group
- -mouse or NOT mouse: excludes; a query needs at least one positive part
- title:failure, abstract:, author:smith, keyword:, doi:10.1371/journal.pone.0000001, fulltext:: a field; title:"heart failure" a phrase in one field
- cardio*: a prefix, expanded to the most frequent matching words (bounded)

Words without a field match the title, abstract, keywords and author names, and with in=fulltext the full text too; ranking is BM25F over those fields (docs/search.md lists the weights). stem=true matches English stems (Snowball): cells finds cell; the default, false, matches exact words. A query that does not parse answers 400 invalid_query with the byte position of the problem in error.position.

sort: relevance (default), year, -year, cited_by. facets=license,topic,year,source,fulltext counts every value over the whole result set (exact); filter by a value with the parameter of the same name (topic, license and source take comma-separated values; fulltext=true; year_from/year_to). snippet=true adds a passage of at most ~200 characters of the open text (abstract, or full-text paragraph with in=fulltext), HTML-escaped with the matched words in <mark>…</mark>, and its attribution and copyright notice. select=title,year keeps only those hit fields (plus id and the rights fields).

Paging: offset up to 10000, or cursor: every page with a next one has next_cursor (and next, a URL); pass it as cursor with the same other parameters to page through a result set of any size. A cursor from a snapshot no longer served answers 410 cursor_expired; cursor and offset together answer 400.`
