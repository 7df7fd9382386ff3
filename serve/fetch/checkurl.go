package fetch

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"code.dny.dev/ssrf"
	"golang.org/x/net/idna"
)

// MaxURLLength is the longest URL accepted, in bytes.
const MaxURLLength = 2048

// publicGuard holds the IANA special-purpose tables. It is immutable and
// safe for concurrent use; only its address checks are used here.
var publicGuard = ssrf.New(ssrf.WithAnyPort())

// hostProfile maps a host the way a browser's URL parser does (UTS 46
// non-transitional, full-width digits and dots folded) without the STD3 and
// hyphen rules, which real hosts such as "r3---sn-x.example.com" or
// "_dmarc.example.com" break. The result is checked below for LDH and '_'.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.CheckHyphens(false),
	idna.StrictDomainName(false),
)

// internalSuffixes are names that only mean something inside a private
// network, or can never be reached on the public internet.
var internalSuffixes = []string{
	"localhost", "local", "internal", "localdomain", "home.arpa", "lan",
	"intranet", "corp", "private", "invalid", "onion",
}

// policy is what varies between the package-level CheckURL and a Client's.
type policy struct {
	// allow lists prefixes admitted although not public (tests only).
	allow []netip.Prefix
	// localhost admits "localhost" and *.localhost (loopback is listed).
	localhost bool
	// privateNames admits private-network and single-label names (a
	// private prefix is listed): they are checked against allow after DNS.
	privateNames bool
	// ports allowed; nil means any.
	ports []int
}

// CheckURL checks raw against the rules that hold for every client (see the
// package comment) and returns the parsed URL with its host in canonical
// form: lower-case ASCII (punycode) without a trailing dot, or a canonical
// IP literal. It does not check the port against a policy, since ports are
// a client setting; Client.CheckURL does. Errors are *Error of kind
// ErrInvalidURL. It never touches the network, so input validation can call
// it before payment. It applies the production rules; a client's
// AllowTargets only widen that client's CheckURL.
func CheckURL(raw string) (*url.URL, error) {
	return checkURL(raw, policy{})
}

// CheckURL is the package-level CheckURL plus this client's port policy and
// its AllowTargets (AllowLoopback) setting.
func (c *Client) CheckURL(raw string) (*url.URL, error) {
	return checkURL(raw, c.policy)
}

func invalid(msg string) error { return newError(ErrInvalidURL, "", msg, nil) }

func checkURL(raw string, p policy) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, invalid("is empty")
	}
	if len(raw) > MaxURLLength {
		return nil, invalid("is longer than " + strconv.Itoa(MaxURLLength) + " bytes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, invalid("is not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, invalid("only http and https URLs can be fetched")
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, invalid("has no host")
	}
	if u.User != nil {
		return nil, invalid("must not contain a user name or password")
	}
	host, err := canonicalHost(u.Host, u.Hostname(), p)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, invalid("has an invalid port")
		}
		port = strconv.Itoa(n)
	}
	if err := p.checkPort(u.Scheme, port); err != nil {
		return nil, err
	}
	u.Host = joinHostPort(host, port)
	return u, nil
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}

func defaultPort(scheme string) int {
	if scheme == "https" {
		return 443
	}
	return 80
}

func (p policy) checkPort(scheme, port string) error {
	if p.ports == nil {
		return nil
	}
	n := defaultPort(scheme)
	if port != "" {
		n, _ = strconv.Atoi(port)
	}
	for _, q := range p.ports {
		if q == n {
			return nil
		}
	}
	return invalid("port " + strconv.Itoa(n) + " is not allowed (allowed: " + portList(p.ports) + ")")
}

func portList(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}

// canonicalHost checks the host part. rawHost is u.Host (to see brackets),
// name is u.Hostname() (already percent-decoded by net/url).
func canonicalHost(rawHost, name string, p policy) (string, error) {
	if strings.HasPrefix(rawHost, "[") {
		if strings.Contains(name, "%") {
			return "", invalid("IPv6 zone identifiers are not allowed")
		}
		a, err := netip.ParseAddr(name)
		if err != nil || !a.Is6() {
			return "", invalid("has an invalid IPv6 address")
		}
		if err := p.checkAddr(a); err != nil {
			return "", err
		}
		return a.String(), nil
	}
	if name == "" {
		return "", invalid("has no host")
	}
	if !utf8.ValidString(name) {
		return "", invalid("has an invalid host name")
	}
	ascii, err := hostProfile.ToASCII(name)
	if err != nil {
		return "", invalid("has an invalid host name")
	}
	// The A-label form must map to itself, or what we check is not what
	// the resolver will see.
	if again, err := hostProfile.ToASCII(ascii); err != nil || again != ascii {
		return "", invalid("has an invalid host name")
	}
	ascii = strings.ToLower(ascii)
	// One trailing dot names the same host ("localhost." is localhost).
	ascii = strings.TrimSuffix(ascii, ".")
	if ascii == "" {
		return "", invalid("has no host")
	}
	if endsInNumber(ascii) {
		a, ok := parseIPv4(ascii)
		if !ok {
			return "", invalid("has a host that is neither a valid IPv4 address nor a domain name")
		}
		if err := p.checkAddr(a); err != nil {
			return "", err
		}
		return a.String(), nil
	}
	if err := checkName(ascii); err != nil {
		return "", err
	}
	isLocalhost := ascii == "localhost" || strings.HasSuffix(ascii, ".localhost")
	if p.localhost && isLocalhost {
		return ascii, nil
	}
	if p.privateNames && !isLocalhost {
		return ascii, nil // the dial-time guard checks what it resolves to
	}
	for _, s := range internalSuffixes {
		if ascii == s || strings.HasSuffix(ascii, "."+s) {
			return "", invalid("host " + ascii + " is a private-network name (." + s + "); only public hosts can be fetched")
		}
	}
	if !strings.Contains(ascii, ".") {
		return "", invalid("host " + ascii + " is not a fully qualified domain name")
	}
	return ascii, nil
}

// checkName enforces DNS shape on an ASCII host name: labels of letters,
// digits, '-' and '_', 1 to 63 bytes, 253 in all.
func checkName(s string) error {
	if len(s) > 253 {
		return invalid("has a host name longer than 253 bytes")
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 {
			return invalid("has an invalid host name")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return invalid("has an invalid host name")
			}
		}
	}
	return nil
}

// checkAddr refuses an address that is not public, unless the policy lists
// it (tests only).
func (p policy) checkAddr(a netip.Addr) error {
	if p.allowed(a) {
		return nil
	}
	if reason := nonPublic(a); reason != "" {
		return invalid("host " + a.String() + " is " + reason + "; only public internet addresses can be fetched")
	}
	return nil
}

// nonPublic returns why a is not a public address, or "" when it is.
func nonPublic(a netip.Addr) string {
	if a.Zone() != "" {
		return "a scoped address"
	}
	if publicGuard.SafeAddr(a) == nil {
		// A public v6 address can still embed a private v4 one in forms
		// the tables do not cover; check what the address would reach.
		if v4, ok := embeddedV4(a); ok && publicGuard.SafeAddr(v4) != nil {
			return "an IPv6 form of " + describe(v4)
		}
		return ""
	}
	return describe(a)
}

var (
	metadataV4 = netip.MustParseAddr("169.254.169.254")
	metadataV6 = netip.MustParseAddr("fd00:ec2::254")
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	compatV4   = netip.MustParsePrefix("::/96")
)

// embeddedV4 returns the IPv4 address an IPv6 address carries in the
// well-known translation forms.
func embeddedV4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap(), true
	case nat64.Contains(a), nat64Local.Contains(a), compatV4.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// describe names the class of a non-public address for error messages.
func describe(a netip.Addr) string {
	if v4, ok := embeddedV4(a); ok && v4 != a {
		return "an IPv6 form of " + describe(v4)
	}
	switch {
	case a == metadataV4 || a == metadataV6:
		return "a cloud metadata address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsUnspecified():
		return "the unspecified address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsMulticast():
		return "a multicast address"
	case cgnat.Contains(a):
		return "a shared (carrier-grade NAT) address"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	}
	return "a reserved or special-purpose address"
}

// endsInNumber is the WHATWG URL "ends in a number" test: a host whose last
// label is numeric must be an IPv4 address (in some spelling) or invalid;
// it is never a domain name.
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	last := parts[len(parts)-1]
	if last == "" {
		if len(parts) == 1 {
			return false
		}
		last = parts[len(parts)-2]
	}
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number parses one part of an IPv4 address as browsers and
// inet_aton do: 0x prefix hex, leading 0 octal, otherwise decimal.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// parseIPv4 is the WHATWG IPv4 parser: one to four parts, the last filling
// the remaining bytes ("127.1" is 127.0.0.1, "2130706433" too).
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
