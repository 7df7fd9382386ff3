package archive

import (
	"errors"
)

// errIndex reports snapshot tables (catalog, aliases, content) that do not
// have the documented shape. The search index has its own,
// search.ErrMalformed.
var errIndex = errors.New("archive: malformed search index")
