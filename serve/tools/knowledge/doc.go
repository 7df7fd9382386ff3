// Package knowledge is the family of knowledge tools: search_specs
// (POST /v1/search) and query_specs (POST /v1/specs) over the snapshot's
// specification table (package [github.com/openshelf/openshelf/specs]),
// and research_brief (POST /v1/research-brief), which combines the
// archive's search with the OpenAlex and Crossref APIs.
//
// The specs table of DATA/current is held in memory in a compact form,
// loaded in the background at start (the server does not wait for it:
// until it is in, the spec tools answer 503 specs_loading with
// Retry-After before payment, and GET /v1/specs/status says "loading")
// and reloaded in the background when DATA/current changes. Numeric
// constraints in queries ("thermal conductivity > 200 W/mK") are parsed
// by [specs.ParseQuery] and matched in SI units; an incompatible unit is a
// 400 before payment.
//
// research_brief runs its searches in the registry's Check step, before
// payment: a query nothing covers is a free 404 not_covered, and the paid
// call reuses the papers found (a short in-memory cache keyed by the
// input), so no live source is asked twice. Abstracts are returned, and
// quoted in the synthesis, only for papers under CC0, the Public Domain
// Mark, CC BY or CC BY-SA.
//
// embed_text lives in the subpackage embed (it needs cgo and ONNX Runtime).
package knowledge
