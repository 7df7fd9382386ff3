package finance

import (
	"context"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// The facts name only the filings that carried XBRL figures for the year.
// An amendment that changed no figure (a 10-K/A adding Part III, a 20-F/A
// adding exhibits) carries none, and an original report filed without
// XBRL leaves its first amendment looking like the report itself. The
// company's filing list (its submissions file) names them all: every
// annual form whose report date is the fiscal year end.

// withFilings returns fund with the fiscal year's annual filings of sub
// added: the filing is the earliest original report (a form without "/A"),
// every other one an amendment. fund is shared between calls and is not
// modified.
func (f *Tools) withFilings(ctx context.Context, fund *Fundamentals, cik edgar.CIK, sub *edgar.Submissions) (*Fundamentals, error) {
	list, err := f.annualFilings(ctx, sub, fund.FiscalYearEnd)
	if err != nil {
		return nil, err
	}
	var refs []FilingRef
	if fund.Filing.Accession != "" {
		refs = append(refs, fund.Filing)
	}
	refs = append(refs, fund.Amendments...)
	for _, fl := range list {
		if !slices.ContainsFunc(refs, func(r FilingRef) bool { return r.Accession == fl.AccessionNumber }) {
			refs = append(refs, FilingRef{Form: fl.Form, Accession: fl.AccessionNumber, Filed: fl.FilingDate})
		}
	}
	for i := range refs {
		refs[i].URL = f.filingIndex(cik, refs[i].Accession)
	}
	if len(refs) == 0 {
		return fund, nil
	}
	sortFilings(refs)
	orig := max(0, slices.IndexFunc(refs, func(r FilingRef) bool { return !isAmendment(r.Form) }))
	out := *fund
	out.Filing = refs[orig]
	out.Amendments = slices.Delete(refs, orig, orig+1)
	return &out, nil
}

// annualFilings lists the annual forms (amendments included) of the
// company whose report date is fyEnd. Such filings come after fyEnd, so
// the older pages of the list are read only when the recent list does not
// reach back to it (a company with more than a year of filings in it).
func (f *Tools) annualFilings(ctx context.Context, sub *edgar.Submissions, fyEnd string) ([]edgar.Filing, error) {
	var out []edgar.Filing
	add := func(fl *edgar.Filings) {
		for i := range fl.Len() {
			if r := fl.At(i); annualForms[r.Form] && r.ReportDate == fyEnd {
				out = append(out, r)
			}
		}
	}
	recent := &sub.Filings.Recent
	add(recent)
	if n := recent.Len(); n > 0 && recent.At(n-1).FilingDate < fyEnd {
		return out, nil
	}
	for _, p := range sub.Filings.Files {
		if p.FilingTo < fyEnd {
			continue
		}
		page, err := f.sec.FilingsPage(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		add(page)
	}
	return out, nil
}

// isAmendment reports whether form amends another filing (10-K/A, 20-F/A).
func isAmendment(form string) bool { return strings.HasSuffix(form, "/A") }
