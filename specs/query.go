package specs

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/openshelf/openshelf/specs/units"
)

// ErrUnitMismatch means a constraint's unit cannot measure its quantity
// ("melting point above 600 W/mK"); test with errors.Is. It wraps
// units.ErrIncompatible.
var ErrUnitMismatch = fmt.Errorf("specs: unit does not fit the quantity: %w", units.ErrIncompatible)

// Constraint is a numeric condition on a quantity, in SI.
type Constraint struct {
	// Quantity is the named quantity, "" when the query named none (then
	// any quantity of the unit's dimension matches).
	Quantity string `json:"quantity,omitempty"`
	// Op is ">", ">=", "<", "<=", "between" or "≈".
	Op string `json:"op"`
	// Unit is the unit as written; SIUnit its SI unit.
	Unit   string    `json:"unit"`
	SIUnit string    `json:"si_unit"`
	Dim    units.Dim `json:"-"`
	// Lo and Hi bound the accepted SI values (±Inf when open); a strict
	// bound excludes its value.
	Lo       float64 `json:"-"`
	Hi       float64 `json:"-"`
	LoStrict bool    `json:"-"`
	HiStrict bool    `json:"-"`
	// Text is the constraint as written in the query.
	Text string `json:"text"`
}

// Query is a parsed free-text query: the words left for full-text search
// and the numeric constraints.
type Query struct {
	Text        string       `json:"text"`
	Constraints []Constraint `json:"constraints"`
}

// approxTolerance is how far a bare value ("band gap 1.3 eV") may be from
// a statement: 5 % of the value.
const approxTolerance = 0.05

// ops are the comparison words, longest first so "at least" wins over
// "at".
var ops = []struct{ text, op string }{
	{"greater than or equal to", ">="}, {"less than or equal to", "<="},
	{"greater than", ">"}, {"more than", ">"}, {"higher than", ">"}, {"larger than", ">"}, {"in excess of", ">"},
	{"less than", "<"}, {"lower than", "<"}, {"smaller than", "<"},
	{"at least", ">="}, {"at most", "<="}, {"no more than", "<="}, {"no less than", ">="}, {"up to", "<="},
	{"approximately", "≈"}, {"around", "≈"}, {"about", "≈"}, {"approx.", "≈"}, {"roughly", "≈"},
	{"between", "between"}, {"from", "between"},
	{"above", ">"}, {"over", ">"}, {"exceeding", ">"}, {"below", "<"}, {"under", "<"}, {"within", "between"},
	{">=", ">="}, {"<=", "<="}, {"≥", ">="}, {"≤", "<="}, {">", ">"}, {"<", "<"}, {"=", "≈"}, {"~", "≈"}, {"≈", "≈"},
	{"of", "≈"}, {"is", "≈"}, {":", "≈"},
}

// ParseQuery splits a query into constraints and the remaining words.
// A number followed by a unit is a constraint; it takes the comparison
// word and the quantity phrase right before it. An unknown unit leaves the
// number in the text; a unit that does not fit the named quantity is an
// error wrapping ErrUnitMismatch.
func ParseQuery(q string) (Query, error) {
	text := normaliseText(q)
	var (
		out  Query
		rest strings.Builder
		last int
	)
	for i := 0; i < len(text); {
		m, ok := scanAt(text, i, nil)
		if !ok {
			i++
			continue
		}
		c, start, err := constraintAt(text, last, m)
		if err != nil {
			return Query{}, err
		}
		rest.WriteString(text[last:start])
		rest.WriteByte(' ')
		out.Constraints = append(out.Constraints, c)
		last, i = m.end, m.end
	}
	rest.WriteString(text[last:])
	out.Text = cleanRest(rest.String())
	return out, nil
}

// constraintAt builds the constraint of a match: the comparison and the
// quantity phrase before it, within text[floor:m.start].
func constraintAt(text string, floor int, m match) (Constraint, int, error) {
	c := Constraint{Unit: m.unit, SIUnit: m.u.SI(), Dim: m.u.Dim, Lo: math.Inf(-1), Hi: math.Inf(1)}
	start := m.start
	lower := strings.ToLower(text)
	before := strings.TrimRight(lower[floor:start], " ")
	op := ""
	for _, o := range ops {
		if strings.HasSuffix(before, o.text) && boundary(before, len(before)-len(o.text), len(before)) ||
			strings.HasSuffix(before, o.text) && !isLetterByte(o.text[0]) {
			op = o.op
			before = strings.TrimRight(before[:len(before)-len(o.text)], " ")
			start = floor + len(before)
			break
		}
	}
	// A second comparison word: "is above", "of at least".
	for _, o := range ops[:len(ops)-3] {
		if op != "" && (o.text == "is" || o.text == "of") {
			continue
		}
		if strings.HasSuffix(before, o.text) && boundary(before, len(before)-len(o.text), len(before)) {
			if op == "" || op == "≈" {
				op = o.op
			}
			before = strings.TrimRight(before[:len(before)-len(o.text)], " ")
			start = floor + len(before)
			break
		}
	}
	for _, filler := range []string{" is", " of", " was", " with", ":"} {
		before = strings.TrimSuffix(before, filler)
	}
	quantity, qstart, known := quantityBefore(before, m.u.Dim)
	if known && quantity == "" {
		return c, 0, fmt.Errorf("%w: %q is not a unit of %s", ErrUnitMismatch, m.unit, strings.TrimSpace(before[qstart:]))
	}
	if quantity != "" {
		c.Quantity = quantity
		start = floor + qstart
	}
	lo, hi := m.u.ToSI(m.lo), m.u.ToSI(m.hi)
	switch {
	case m.isRange:
		c.Op, c.Lo, c.Hi = "between", lo, hi
	case op == ">" || op == ">=":
		c.Op, c.Lo, c.LoStrict = op, lo, op == ">"
	case op == "<" || op == "<=":
		c.Op, c.Hi, c.HiStrict = op, lo, op == "<"
	default:
		tol := math.Abs(m.u.ToSIDelta(m.lo)) * approxTolerance
		if m.unc > 0 {
			tol = m.u.ToSIDelta(m.unc)
		}
		c.Op, c.Lo, c.Hi = "≈", lo-tol, lo+tol
	}
	c.Text = strings.TrimSpace(text[start:m.end])
	return c, start, nil
}

func isLetterByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// quantityBefore finds the quantity phrase that ends the text before a
// constraint. known reports that a phrase was there: then quantity is ""
// when no quantity of that phrase has the unit's dimension.
func quantityBefore(before string, dim units.Dim) (quantity string, start int, known bool) {
	bestLen := 0
	for _, p := range phrases {
		for _, form := range []string{p.text, p.q.Name, strings.ReplaceAll(p.q.Name, "_", " ")} {
			if len(form) <= bestLen || !strings.HasSuffix(before, form) ||
				!boundary(before, len(before)-len(form), len(before)) {
				continue
			}
			if len(form) < 4 && form != p.q.Name {
				continue // "od", "for": too short to name a quantity in a query
			}
			known, start, bestLen = true, len(before)-len(form), len(form)
			quantity = ""
			// Prefer the quantity of that phrase whose dimension fits.
			for _, p2 := range phrases {
				if (p2.text == form || p2.q.Name == strings.ReplaceAll(form, " ", "_")) && p2.q.Dim == dim {
					quantity = p2.q.Name
					break
				}
			}
		}
	}
	if !known {
		for d, n := range byDim {
			form := strings.ReplaceAll(n, "_", " ")
			if strings.HasSuffix(before, form) && boundary(before, len(before)-len(form), len(before)) && len(form) > bestLen {
				known, start, bestLen = true, len(before)-len(form), len(form)
				quantity = ""
				if d == dim {
					quantity = n
				}
			}
		}
	}
	return quantity, start, known
}

// cleanRest collapses the words left after taking the constraints out,
// dropping dangling connectives.
func cleanRest(s string) string {
	words := strings.Fields(s)
	drop := map[string]bool{"and": true, "with": true, "or": true, "of": true, "having": true, "where": true, ",": true, "that": true, "has": true, "have": true}
	for len(words) > 0 && drop[strings.ToLower(words[len(words)-1])] {
		words = words[:len(words)-1]
	}
	for len(words) > 0 && drop[strings.ToLower(words[0])] {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// Matches reports whether a statement satisfies the constraint: same
// quantity (any temperature quantity for "temperature"; any quantity of
// the dimension when none was named) and an SI interval that meets the
// bounds.
func (c *Constraint) Matches(s *Statement) bool {
	if c.SIUnit != s.SIUnit {
		return false
	}
	if !QuantityMatches(c.Quantity, s.Quantity) {
		return false
	}
	return c.Overlaps(s.SIMin, s.SIMax)
}

// Overlaps reports whether an SI interval [lo, hi] meets the bounds.
func (c *Constraint) Overlaps(lo, hi float64) bool {
	if c.LoStrict && !(hi > c.Lo) || !c.LoStrict && !(hi >= c.Lo) {
		return false
	}
	if c.HiStrict && !(lo < c.Hi) || !c.HiStrict && !(lo <= c.Hi) {
		return false
	}
	return true
}

// QuantityMatches reports whether a statement's quantity answers a
// requested one: equal names, or the generic "temperature" for any
// temperature quantity; an empty request matches everything.
func QuantityMatches(want, got string) bool {
	if want == "" || want == got {
		return true
	}
	if want == "temperature" {
		d, _ := QuantityDim(got)
		return d == units.Temperature
	}
	return false
}

// Range returns a constraint from explicit bounds in a unit (query_specs'
// min, max and unit); both bounds are inclusive.
func Range(quantity, unit string, min, max *float64) (Constraint, error) {
	u, err := units.Parse(unit)
	if err != nil {
		return Constraint{}, err
	}
	if quantity != "" {
		if d, ok := QuantityDim(quantity); ok && d != u.Dim {
			return Constraint{}, fmt.Errorf("%w: %q is not a unit of %s (%s)", ErrUnitMismatch, unit, quantity, d.SIName())
		}
	}
	c := Constraint{Quantity: quantity, Op: "between", Unit: unit, SIUnit: u.SI(), Dim: u.Dim, Lo: math.Inf(-1), Hi: math.Inf(1)}
	if min != nil {
		c.Lo = u.ToSI(*min)
	}
	if max != nil {
		c.Hi = u.ToSI(*max)
	}
	if c.Lo > c.Hi {
		return Constraint{}, errors.New("specs: min is greater than max")
	}
	return c, nil
}
