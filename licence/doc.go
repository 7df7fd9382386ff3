// Package licence turns licence evidence found in source records into a
// publication decision.
//
// The archive may publish only documents whose licence permits commercial
// redistribution and derivatives: CC0, the Public Domain Mark, CC BY and
// CC BY-SA. Everything else (NC, ND, TDM-only, custom terms, unknown or
// missing licences) is rejected with a machine-readable reason. Publishing a
// wrongly licensed document is the worst defect this project can have, so
// every rule here errs towards rejection: a document is accepted only when
// its licence is proven.
//
// The package imports nothing else from this module.
package licence
