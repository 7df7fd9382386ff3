// Package fetch is the one guarded outbound HTTP client. Every tool that
// touches a user-given URL, alarm webhook deliveries and the browser proxy go
// through it, so the rules below live in exactly one place.
//
// # What is refused, and where
//
// [CheckURL] (and [Client.CheckURL], which adds the client's port policy) is
// a pure check on the URL text, cheap enough to run while validating input,
// before any payment:
//
//   - only http and https; at most 2048 bytes; a host is required;
//   - no userinfo ("user:pass@"): credentials in URLs end up in logs and
//     "https://trusted.example@evil.example/" is a classic confusion trick;
//   - a literal address that is not public, in any spelling a browser or
//     libc would accept: dotted, decimal (2130706433), octal (0177.0.0.1),
//     hex (0x7f.1, 0x7f000001), short forms (127.1), percent-encoded, full
//     width digits, IPv6 literals including IPv4-mapped, NAT64, 6to4 and
//     Teredo forms; IPv6 zone identifiers are refused outright. The address
//     classes come from the IANA special-purpose registries as packaged by
//     code.dny.dev/ssrf (loopback, RFC 1918, link-local and so the cloud
//     metadata address 169.254.169.254, CGNAT, documentation, benchmarking,
//     multicast, reserved, broadcast; for IPv6 everything outside 2000::/3,
//     so fc00::/7 and fd00:ec2::254 too);
//   - names that can only mean something inside a private network:
//     localhost and *.localhost (RFC 6761), *.local (mDNS), *.internal
//     (reserved by ICANN for private use; GCP and AWS metadata names live
//     there), *.home.arpa, *.localdomain, *.lan, *.intranet, *.corp,
//     *.private, *.invalid, *.onion; and single-label names ("http://metadata/")
//     because resolver search domains turn them into internal names.
//
// Those are invalid input (400 invalid_input, field "url").
//
// A name can still resolve to a private address, now or after a rebinding.
// So every connection, including each redirect hop and the robots.txt fetch,
// is checked again after DNS resolution by an ssrf.Guardian installed as
// net.Dialer.Control, with Transport.Proxy = nil (a proxy would make the
// guard check the proxy's address instead of the target's). A refusal there
// is [ErrForbiddenTarget] (403 forbidden_target). Redirect targets are checked
// with CheckURL before they are requested; a redirect into a refused target
// is also [ErrForbiddenTarget].
//
// # robots.txt
//
// Before fetching, the client reads /robots.txt of the target origin (and of
// every redirect hop's origin) through the same guard, following RFC 9309:
// 2xx is parsed (an unparsable file allows everything, the RFC asks parsers to
// be lenient), 4xx allows everything, 5xx or a failure after connecting
// disallows everything. An origin that cannot be connected to at all (DNS,
// connection refused, bad certificate) is reported as upstream_error, since
// the page could not be fetched either. Redirects of robots.txt are followed
// (five at most) through the same checks. Results are cached per scheme+host+port for RobotsCacheTTL;
// failures for at most five minutes so a passing outage does not lock a site
// out for a day. The group is chosen by the product token of UserAgent
// ("openshelf-fetch"). A disallowed URL is [ErrRobotsDisallowed]
// (403 robots_disallowed). Webhook deliveries set Options.IgnoreRobots:
// robots.txt governs crawling, not requests the owner of the URL asked for.
//
// # Caps
//
// Every request has a time limit (Config.Timeout, 504 upstream_timeout), a
// redirect limit (502 too_many_redirects) and a body limit. A body over the
// limit is either cut with Response.Truncated set (Options.AllowTruncated,
// for readers that only need the start, such as the <head> of a page) or the
// error [ErrTooLarge] (502 upstream_too_large) for readers that need the whole
// document (article extraction, feeds). The limit applies to decoded bytes,
// so a gzip bomb is cut too.
//
// # Private targets, for tests
//
// Config.AllowTargets (and its shorthand Config.AllowLoopback) lists
// prefixes a client admits although they are not public, in its CheckURL
// and at every dial; `openshelf serve --unsafe-allow-targets` sets it for
// the server's clients. The package-level CheckURL always applies the
// production rules. Nothing outside the listed prefixes is admitted (see
// targets.go).
//
// All errors are *Error values: errors.Is matches this package's sentinels
// and the apierr kinds they specialise, and errors.As(err, **apierr.Error)
// yields the status, stable code and message for the API response.
package fetch
