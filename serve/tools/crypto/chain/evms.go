package chain

import (
	"fmt"
	"strings"

	"github.com/openshelf/openshelf/serve/apierr"
)

// EVMs are the clients of the configured EVM chains, by name.
type EVMs map[string]*EVM

// Client returns the client of the chain a request names in field, or a
// 400 naming the field and the configured chains.
func (m EVMs) Client(field, name string) (*EVM, error) {
	c, ok := m[strings.ToLower(name)]
	if !ok {
		return nil, apierr.Invalid(field, fmt.Sprintf("chain %q is not one of the configured EVM chains (%s)", name, strings.Join(EVMChains, ", ")))
	}
	return c, nil
}
