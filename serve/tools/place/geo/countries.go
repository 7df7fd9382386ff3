package geo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Country holds the facts of countries-list (MIT) for one ISO 3166-1 code.
type Country struct {
	Code          string     `json:"code"`   // alpha-2
	Alpha3        string     `json:"alpha3"` // alpha-3
	Name          string     `json:"name"`
	Native        string     `json:"native"`
	Aliases       []string   `json:"aliases,omitempty"`
	Continent     string     `json:"continent"` // AF, AN, AS, EU, NA, OC, SA
	ContinentName string     `json:"continent_name"`
	Capital       string     `json:"capital"`
	Currencies    []Currency `json:"currencies"`
	Languages     []Language `json:"languages"`
	CallingCodes  []string   `json:"calling_codes"` // "+1268"
	PartOf        string     `json:"part_of,omitempty"`
}

// Currency is an ISO 4217 currency.
type Currency struct {
	Code   string `json:"code"`
	Name   string `json:"name,omitempty"`
	Symbol string `json:"symbol,omitempty"`
}

// Language is an ISO 639-1 language.
type Language struct {
	Code   string `json:"code"`
	Name   string `json:"name,omitempty"`
	Native string `json:"native,omitempty"`
}

func readJSON(dir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, countriesDir, name))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrData, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrData, name, err)
	}
	return nil
}

// readCountries joins countries-list's countries, alpha-3 codes,
// continents, currencies and languages, sorted by code.
func readCountries(dir string) ([]Country, error) {
	var raw map[string]struct {
		Name, Native, Continent, Capital, PartOf string
		Alias                                    []string
		Phone                                    []int
		Currency, Languages                      []string
	}
	var to3, continents map[string]string
	var currencies map[string]struct{ Name, Symbol string }
	var languages map[string]struct{ Name, Native string }
	for name, v := range map[string]any{"countries.min.json": &raw, "minimal/countries.2to3.min.json": &to3,
		"continents.min.json": &continents, "currencies.min.json": &currencies, "languages.min.json": &languages} {
		if err := readJSON(dir, name, v); err != nil {
			return nil, err
		}
	}
	out := make([]Country, 0, len(raw))
	for code, r := range raw {
		c := Country{Code: code, Alpha3: to3[code], Name: r.Name, Native: r.Native, Aliases: r.Alias,
			Continent: r.Continent, ContinentName: continents[r.Continent], Capital: r.Capital, PartOf: r.PartOf,
			Currencies: []Currency{}, Languages: []Language{}, CallingCodes: []string{}}
		for _, cur := range r.Currency {
			c.Currencies = append(c.Currencies, Currency{Code: cur, Name: currencies[cur].Name, Symbol: currencies[cur].Symbol})
		}
		for _, l := range r.Languages {
			c.Languages = append(c.Languages, Language{Code: l, Name: languages[l].Name, Native: languages[l].Native})
		}
		for _, p := range r.Phone {
			c.CallingCodes = append(c.CallingCodes, fmt.Sprintf("+%d", p))
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: countries.min.json is empty", ErrData)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out, nil
}
