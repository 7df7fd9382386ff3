package openalex

import "github.com/openshelf/openshelf/ingest/internal/limit"

// maxLine caps one JSON line. The largest real works (thousands of
// authorships) are a few megabytes; anything beyond this is not a work.
const maxLine = limit.RecordBytes
