package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openshelf/openshelf/serve/schema"
)

// Resource is the URL a call is paid for, the same over HTTP and MCP: the
// base URL, the path with its parameters filled in from in (the endpoint's
// decoded input) and, when the input has anything beyond path parameters,
// a digest of it. A payment therefore buys one call with one input: re-sent
// with the same input it is a replay (served again, charged once), with any
// other input it is refused as reused.
func (e *Endpoint) Resource(base string, in any) (string, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("registry: resource of %s: %w", e.Name, err)
	}
	var vals map[string]any
	if err := json.Unmarshal(b, &vals); err != nil {
		return "", fmt.Errorf("registry: resource of %s: %w", e.Name, err)
	}
	segs := strings.Split(e.Path, "/")
	for i, s := range segs {
		if s == "" || (s[0] != ':' && s[0] != '*') {
			continue
		}
		v, ok := vals[s[1:]].(string)
		if !ok {
			return "", fmt.Errorf("registry: resource of %s: path parameter %s is not a string field of the input", e.Name, s[1:])
		}
		delete(vals, s[1:])
		if s[0] == '*' {
			v = strings.TrimPrefix(v, "/")
		}
		segs[i] = v
	}
	url := base + strings.Join(segs, "/")
	if e.Input != nil {
		for _, f := range e.Input.Fields {
			if f.In == schema.InPath {
				delete(vals, f.Name)
			}
		}
	}
	if len(vals) == 0 {
		return url, nil
	}
	// encoding/json sorts map keys, so the digest is canonical.
	canon, _ := json.Marshal(vals)
	sum := sha256.Sum256(canon)
	return url + "?input=" + hex.EncodeToString(sum[:16]), nil
}
