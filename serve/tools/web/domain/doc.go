// Package domain is the domain_intel tool: a domain's registration (RDAP,
// through IANA's bootstrap file), its DNS records with the DNS, mail and
// hosting providers behind them, and the technologies its homepage shows.
//
// HTTP (RDAP, homepage) goes through the guarded client of package fetch;
// DNS goes to the configured recursive resolver. A check that fails says
// why in its section's error field and the others are still answered;
// only invalid input (400) or every requested check failing (502
// upstream_error) is an error.
package domain
