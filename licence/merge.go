package licence

// item is a term with the evidence it came from (nil inside Parse).
type item struct {
	t Term
	e *Evidence
}

// merger folds terms of equal rank into one outcome: any vetoing restriction
// wins (the most severe one); otherwise the most restrictive accepted family
// (CC BY-SA > CC BY > CC0/PDM), refined by the versions stated; TDM-only
// licences count only when nothing else grants reuse (a TDM grant does not
// take away a reuse licence given elsewhere). The outcome does not depend on
// the order terms are added in.
type merger struct {
	restr, tdm       item
	hasRestr, hasTDM bool
	accs             [6]item // accepted terms; more spill into extra
	nacc             int
	extra            []item
}

// restrRank orders vetoing reasons by severity, for the reason reported when
// several apply: non-commercial and no-derivatives are explicit and most
// informative, unknown is the weakest.
func restrRank(t Term) int {
	switch t.Reason {
	case NonCommercial:
		if t.NoDerivs {
			return 7
		}
		return 6
	case NoDerivatives:
		return 5
	case CustomTerms:
		return 4
	case Conflict:
		return 3
	case Embargoed:
		return 2
	}
	return 1
}

// famRank orders accepted families by the obligations they impose.
func famRank(f Family) int {
	switch f {
	case CCBYSA:
		return 2
	case CCBY:
		return 1
	}
	return 0
}

// strength orders how directly a term states the licence: a URL or code
// names one exact licence, wording is an interpretation.
func strength(t Term) int {
	switch t.Basis {
	case BasisURL, BasisCode:
		return 3
	case BasisText:
		return 2
	case BasisLabel:
		return 1
	}
	return 0
}

func (m *merger) add(t Term, e *Evidence) {
	it := item{t, e}
	switch {
	case t.Reason == TDMOnly:
		if !m.hasTDM {
			m.tdm, m.hasTDM = it, true
		}
	case t.Reason != "":
		if !m.hasRestr || restrRank(t) > restrRank(m.restr.t) {
			m.restr, m.hasRestr = it, true
		}
	case t.Family != "":
		if m.nacc < len(m.accs) {
			m.accs[m.nacc] = it
			m.nacc++
		} else {
			m.extra = append(m.extra, it)
		}
	}
}

func (m *merger) hasAcc() bool { return m.nacc > 0 }

func (m *merger) accepted(i int) *item {
	if i < len(m.accs) {
		return &m.accs[i]
	}
	return &m.extra[i-len(m.accs)]
}

// resolve picks the accepted licence: the most restrictive family; among
// CC0 and PDM (no order between them) the most directly stated one; the
// version and port from the terms that state one. conflict is set, with the
// contradicting term in other, when two families tie or two different
// versions/ports of the chosen family are stated.
func (m *merger) resolve() (best item, other item, conflict bool) {
	n := m.nacc + len(m.extra)
	maxRank, maxStr := -1, 0
	for i := 0; i < n; i++ {
		maxRank = max(maxRank, famRank(m.accepted(i).t.Family))
	}
	for i := 0; i < n; i++ {
		if t := m.accepted(i).t; famRank(t.Family) == maxRank {
			maxStr = max(maxStr, strength(t))
		}
	}
	versioned := func(t Term) bool { return t.Version != "" || t.Port != "" }
	found := false
	for i := 0; i < n; i++ {
		it := m.accepted(i)
		if famRank(it.t.Family) != maxRank || strength(it.t) != maxStr {
			continue
		}
		if !found || (!versioned(best.t) && versioned(it.t)) {
			best, found = *it, true
		}
	}
	if !versioned(best.t) {
		for i := 0; i < n; i++ {
			if t := m.accepted(i).t; t.Family == best.t.Family && versioned(t) {
				best.t.Version, best.t.Port, best.t.URL = t.Version, t.Port, t.URL
				break
			}
		}
	}
	for i := 0; i < n; i++ {
		it := m.accepted(i)
		t := it.t
		if famRank(t.Family) != maxRank {
			continue
		}
		if t.Family != best.t.Family && strength(t) == maxStr ||
			t.Family == best.t.Family && versioned(t) && (t.Version != best.t.Version || t.Port != best.t.Port) {
			return best, *it, true
		}
	}
	return best, other, false
}

// empty reports whether nothing was added that says anything.
func (m *merger) empty() bool { return !m.hasRestr && !m.hasAcc() && !m.hasTDM }

// result gives the single term the merged terms amount to.
func (m *merger) result() (Term, bool) {
	switch {
	case m.hasRestr:
		return m.restr.t, true
	case m.hasAcc():
		best, other, conflict := m.resolve()
		if conflict {
			return Term{Reason: Conflict, Basis: best.t.Basis, Note: "conflicting licences " + best.t.Label() + " and " + other.t.Label()}, true
		}
		return best.t, true
	case m.hasTDM:
		return m.tdm.t, true
	}
	return Term{}, false
}
