package crossref

import "github.com/openshelf/openshelf/ingest/internal/limit"

// maxLine caps one JSON line in line mode, and one value in stream mode.
// Real works (thousands of references) are a few megabytes; a longer record
// is reported as record_too_large and skipped.
const maxLine = limit.RecordBytes

// sniffSize is how much input is examined to choose between line mode and
// stream mode.
const sniffSize = 1 << 20
