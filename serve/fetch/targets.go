package fetch

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Private targets for tests. Production admits public addresses only; a
// test (or a private test network) may list prefixes that are admitted
// although they are not public: Config.AllowTargets for a client (its
// CheckURL, every dial after DNS resolution, so every redirect hop and
// robots.txt, and DialContext for the browser proxy); `openshelf serve
// --unsafe-allow-targets` sets it for every client of the server. The
// package-level [CheckURL] keeps the production rules: tools check a
// user's URL with their client's CheckURL before payment. Addresses outside the prefixes keep
// being refused: the cloud metadata address 169.254.169.254 only passes
// when a listed prefix contains it.

// LoopbackPrefixes returns 127.0.0.0/8 and ::1/128, what
// Config.AllowLoopback stands for.
func LoopbackPrefixes() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// Targets returns the prefixes c admits although not public:
// AllowTargets, plus LoopbackPrefixes with AllowLoopback.
func (c Config) Targets() []netip.Prefix {
	t := slices.Clone(c.AllowTargets)
	if c.AllowLoopback {
		for _, p := range LoopbackPrefixes() {
			if !slices.Contains(t, p) {
				t = append(t, p)
			}
		}
	}
	return t
}

// ParsePrefixes parses a comma-separated list of CIDR prefixes
// ("127.0.0.0/8,::1/128,10.9.0.0/16"); a bare address stands for itself
// alone (/32 or /128). Host bits are cleared; zones are refused.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(f, "/") {
			var err error
			if p, err = netip.ParsePrefix(f); err != nil {
				return nil, fmt.Errorf("fetch: target prefix %q: %w", f, err)
			}
		} else {
			a, err := netip.ParseAddr(f)
			if err != nil || a.Zone() != "" {
				return nil, fmt.Errorf("fetch: target prefix %q: not a CIDR prefix or an address", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		p = p.Masked()
		if p.Addr().Is4In6() {
			// ::ffff:10.0.0.0/104 is 10.0.0.0/8: dialled addresses are
			// unmapped before they are compared. (Masked leaves a mapped
			// address only for /96 and longer.)
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// FormatPrefixes is the inverse of ParsePrefixes, for logs and messages.
func FormatPrefixes(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// targetPolicy is the policy of a client admitting prefixes (none: the
// production policy with ports).
func targetPolicy(prefixes []netip.Prefix, ports []int) policy {
	if len(prefixes) == 0 {
		return policy{ports: ports}
	}
	p := policy{allow: slices.Clone(prefixes)}
	// "localhost" is what it resolves to: 127.0.0.1 or ::1.
	p.localhost = p.allowed(netip.MustParseAddr("127.0.0.1")) || p.allowed(netip.IPv6Loopback())
	for _, q := range prefixes {
		if !q.Addr().IsLoopback() && nonPublic(q.Addr()) != "" {
			p.privateNames = true
		}
	}
	// Test servers listen on any port; what a public address may use is
	// still decided at dial time by the guard.
	return p
}

// allowed reports whether a is in one of the listed prefixes.
func (p policy) allowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, q := range p.allow {
		if q.Contains(a) {
			return true
		}
	}
	return false
}
