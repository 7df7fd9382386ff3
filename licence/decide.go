package licence

import "time"

// Decide turns all evidence for one document into a decision, as of now.
// Evidence from several sources is resolved by precedence (PMC JATS >
// publisher JATS > Crossref version of record > OpenAlex); within the winning
// source, several current licences resolve to the most restrictive.
func Decide(ev []Evidence, now time.Time) Decision {
	// Placeholder until the rules land: nothing is proven, nothing published.
	return Decision{Reason: Missing, Detail: "no licence rules yet", Evidence: ev}
}
