package schema

import (
	"regexp"
	"sync"
)

var patterns sync.Map // string → *regexp.Regexp

// compiled returns the compiled form of a pattern already validated by
// describe.
func compiled(p string) *regexp.Regexp {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(p)
	patterns.Store(p, re)
	return re
}
