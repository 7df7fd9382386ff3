package knowledge

// WriteBenchTable writes the spec-query benchmark's synthetic specs table
// (1M documents' worth) for the start-up benchmark of the external tests.
var WriteBenchTable = writeBenchTable
