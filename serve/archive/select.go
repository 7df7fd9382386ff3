package archive

import (
	"encoding/json"
	"slices"
)

// alwaysSelected are the hit fields select never removes: the id, and the
// rights that must travel with any content shown.
var alwaysSelected = []string{"id", "license", "license_url", "attribution", "copyright_notice"}

// project returns v (a value whose JSON has an items array) with only the
// selected fields in each item.
func project(v any, fields []string) (json.RawMessage, error) {
	b, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(top["items"], &items); err != nil {
		return nil, err
	}
	for _, it := range items {
		for k := range it {
			if !slices.Contains(fields, k) && !slices.Contains(alwaysSelected, k) {
				delete(it, k)
			}
		}
	}
	if top["items"], err = encodeJSON(items); err != nil {
		return nil, err
	}
	return encodeJSON(top)
}
