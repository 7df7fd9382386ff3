// Package archdoc holds the test that keeps the package graph of
// docs/architecture.md equal to the code's imports, so the document a
// newcomer reads first cannot drift from the code. It has no other code.
package archdoc
