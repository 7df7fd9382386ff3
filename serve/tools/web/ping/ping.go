package ping

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/internal/page"
)

// Input is the input of ping_status.
type Input struct {
	URL    string `json:"url" doc:"The http or https URL to check." minLength:"1" maxLength:"2048"`
	Method string `json:"method,omitempty" doc:"HEAD (falls back to GET when the server answers 405 or 501) or GET." enum:"HEAD|GET" default:"HEAD"`
	// CheckSSL and FollowRedirects default to true; the registry fills the
	// default before the handler runs.
	CheckSSL        bool `json:"check_ssl,omitempty" doc:"Report the TLS certificate and count an invalid one as down." default:"true"`
	FollowRedirects bool `json:"follow_redirects,omitempty" doc:"Follow redirects (up to 10) and report the chain." default:"true"`
}

// Output is the answer of ping_status. A target that cannot be reached
// is a normal answer with Up false and Error set.
type Output struct {
	URL string `json:"url"`
	// Up: the final answer is 2xx or 3xx and, with check_ssl, the
	// certificate is valid.
	Up bool `json:"up"`
	// Reachable: the server answered HTTP at all (any status).
	Reachable bool `json:"reachable"`
	// Error says why the target is down; ErrorKind is one of dns, connect,
	// timeout, tls, redirect, http.
	Error          string `json:"error,omitempty"`
	ErrorKind      string `json:"error_kind,omitempty"`
	Method         string `json:"method"`
	HeadFallback   bool   `json:"head_fallback,omitempty"`
	Status         int    `json:"status,omitempty"`
	StatusText     string `json:"status_text,omitempty"`
	ResponseTimeMS int64  `json:"response_time_ms"`
	FinalURL       string `json:"final_url,omitempty"`
	// Redirects are the hops before the final answer.
	Redirects []Hop `json:"redirects"`
	// Headers of the final answer: lower-case names, values joined with
	// ", ", at most maxPingHeaders names and maxHeaderValue characters each.
	Headers          map[string]string `json:"headers,omitempty"`
	HeadersTruncated bool              `json:"headers_truncated,omitempty"`
	Security         *SecurityHeaders  `json:"security_headers,omitempty"`
	TLS              *TLSInfo          `json:"tls,omitempty"`
	CheckedAt        time.Time         `json:"checked_at"`
}

// Hop is one redirect.
type Hop struct {
	URL            string `json:"url"`
	Status         int    `json:"status"`
	Location       string `json:"location"`
	ResponseTimeMS int64  `json:"response_time_ms"`
}

// SecurityHeaders lists the security headers of the final answer.
type SecurityHeaders struct {
	Present []SecurityHeader `json:"present"`
	Missing []string         `json:"missing"`
}

// SecurityHeader is a present header with remarks on its value.
type SecurityHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Note  string `json:"note,omitempty"`
}

// TLSInfo describes the connection and certificate of the final answer.
type TLSInfo struct {
	Version       string    `json:"version"`
	Cipher        string    `json:"cipher"`
	ALPN          string    `json:"alpn,omitempty"`
	Subject       string    `json:"subject"`
	Issuer        string    `json:"issuer"`
	SANs          []string  `json:"sans"`
	Serial        string    `json:"serial"`
	KeyType       string    `json:"key_type"`
	NotBefore     time.Time `json:"not_before"`
	NotAfter      time.Time `json:"not_after"`
	DaysLeft      int       `json:"days_left"`
	Chain         []string  `json:"chain"` // subjects, leaf first, as sent
	ChainVerified bool      `json:"chain_verified"`
	VerifyError   string    `json:"verify_error,omitempty"`
	OCSPServers   []string  `json:"ocsp_servers,omitempty"`
	CRLURLs       []string  `json:"crl_urls,omitempty"`
}

const (
	maxPingRedirects = 10
	maxPingHeaders   = 60
	maxHeaderValue   = 512
	// A GET reads at most this much; ping reports status, not content.
	pingBodyCap = 64 << 10
)

// securityHeaderNames are checked on every answer, in this order.
var securityHeaderNames = []string{
	"Strict-Transport-Security",
	"Content-Security-Policy",
	"X-Content-Type-Options",
	"X-Frame-Options",
	"Referrer-Policy",
	"Permissions-Policy",
	"Cross-Origin-Opener-Policy",
	"Cross-Origin-Embedder-Policy",
	"Cross-Origin-Resource-Policy",
}

// ping runs ping_status. Only invalid input and guard refusals are errors;
// anything else that goes wrong with the target is an answer with Up false.
func (p *Tool) ping(ctx context.Context, in *Input) (*Output, error) {
	method := strings.ToUpper(in.Method)
	if method == "" {
		method = http.MethodHead
	}
	out := &Output{URL: in.URL, Method: method, Redirects: []Hop{}, CheckedAt: p.now().UTC()}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()

	cur := in.URL
	var total time.Duration
	for {
		start := time.Now()
		resp, err := p.fetch.Do(ctx, method, cur, fetch.Options{
			NoFollow:       true,
			IgnoreRobots:   true, // a status probe the caller asked for, not crawling (RFC 9309 governs crawlers)
			InsecureTLS:    true, // so an invalid certificate is reported, not a dead end
			AllowTruncated: true,
			MaxBytes:       pingBodyCap,
		})
		if err == nil && method == http.MethodHead && (resp.Status == http.StatusMethodNotAllowed || resp.Status == http.StatusNotImplemented) {
			method = http.MethodGet
			out.Method, out.HeadFallback = method, true
			resp, err = p.fetch.Do(ctx, method, cur, fetch.Options{
				NoFollow: true, IgnoreRobots: true, InsecureTLS: true, AllowTruncated: true, MaxBytes: pingBodyCap,
			})
		}
		elapsed := time.Since(start)
		total += elapsed
		out.ResponseTimeMS = total.Milliseconds()
		if err != nil {
			if guardRefusal(err) {
				return nil, err
			}
			out.FinalURL = cur
			out.Error, out.ErrorKind = downReason(err)
			return out, nil
		}
		loc := resp.Header.Get("Location")
		if in.FollowRedirects && isRedirectStatus(resp.Status) && loc != "" {
			out.Redirects = append(out.Redirects, Hop{URL: cur, Status: resp.Status, Location: loc, ResponseTimeMS: elapsed.Milliseconds()})
			next, err := resp.FinalURL.Parse(loc)
			if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
				p.finish(out, resp, in.CheckSSL)
				out.Up = false
				out.Error, out.ErrorKind = "redirect to an invalid or non-http Location: "+page.CutBytes(loc, 200), "redirect"
				return out, nil
			}
			if len(out.Redirects) > maxPingRedirects {
				p.finish(out, resp, in.CheckSSL)
				out.Up = false
				out.Error, out.ErrorKind = "more than "+strconv.Itoa(maxPingRedirects)+" redirects", "redirect"
				return out, nil
			}
			if _, err := p.fetch.CheckURL(next.String()); err != nil {
				// A redirect into a refused target is the guard's call,
				// as for the first URL: 403, not "down".
				return nil, apierr.New(apierr.ErrForbidden, "forbidden_target", "the target redirects to a refused address")
			}
			if resp.Status == http.StatusSeeOther && method != http.MethodHead {
				method = http.MethodGet
			}
			cur = next.String()
			continue
		}
		p.finish(out, resp, in.CheckSSL)
		return out, nil
	}
}

// finish fills the answer from the final response.
func (p *Tool) finish(out *Output, resp *fetch.Response, checkSSL bool) {
	out.Reachable = true
	out.Status = resp.Status
	out.StatusText = http.StatusText(resp.Status)
	out.FinalURL = resp.FinalURL.String()
	out.Headers, out.HeadersTruncated = pickHeaders(resp.Header)
	out.Security = securityHeaders(resp.Header, resp.FinalURL.Scheme == "https")
	out.Up = resp.Status >= 200 && resp.Status < 400
	if !out.Up {
		out.Error, out.ErrorKind = "HTTP "+strconv.Itoa(resp.Status)+" "+http.StatusText(resp.Status), "http"
	}
	if checkSSL && resp.TLS != nil {
		out.TLS = p.tlsInfo(resp.TLS, resp.FinalURL.Hostname())
		if !out.TLS.ChainVerified && out.Up {
			out.Up = false
			out.Error, out.ErrorKind = "TLS certificate not valid: "+out.TLS.VerifyError, "tls"
		}
	}
}

func isRedirectStatus(s int) bool {
	switch s {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// guardRefusal: errors that must reach the caller as errors (400/403)
// rather than be reported as a down target.
func guardRefusal(err error) bool {
	return errors.Is(err, fetch.ErrForbiddenTarget) || errors.Is(err, fetch.ErrInvalidURL) ||
		errors.Is(err, fetch.ErrRobotsDisallowed) || errors.Is(err, apierr.ErrForbidden) ||
		errors.Is(err, apierr.ErrInvalidInput)
}

// downReason turns a fetch failure into a message and a kind. The message
// is the client-safe one of fetch.Error, so internal details stay in logs.
func downReason(err error) (msg, kind string) {
	msg = "the request failed"
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Msg != "" {
		msg = fe.Msg
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, fetch.ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
		return "the request timed out", "timeout"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "the host name does not resolve (NXDOMAIN)", "dns"
		}
		return "cannot resolve the host name", "dns"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return msg, "connect"
	case errors.Is(err, fetch.ErrTooManyRedirects):
		return msg, "redirect"
	}
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	if errors.As(err, &recErr) || errors.As(err, &alert) || strings.Contains(strings.ToLower(err.Error()), "tls") {
		return "the TLS handshake failed", "tls"
	}
	return msg, "connect"
}

// pickHeaders copies the response headers, lower-cased and capped.
func pickHeaders(h http.Header) (map[string]string, bool) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	truncated := false
	if len(names) > maxPingHeaders {
		names, truncated = names[:maxPingHeaders], true
	}
	out := make(map[string]string, len(names))
	for _, k := range names {
		v := strings.Join(h.Values(k), ", ")
		if len(v) > maxHeaderValue {
			v, truncated = page.CutBytes(v, maxHeaderValue), true
		}
		out[strings.ToLower(k)] = v
	}
	return out, truncated
}

// securityHeaders reports which of securityHeaderNames are present, with
// remarks on weak values. HSTS only counts over https (browsers ignore it
// over http), and X-Frame-Options is satisfied by CSP frame-ancestors.
func securityHeaders(h http.Header, https bool) *SecurityHeaders {
	out := &SecurityHeaders{Present: []SecurityHeader{}, Missing: []string{}}
	csp := h.Get("Content-Security-Policy")
	for _, name := range securityHeaderNames {
		v := strings.TrimSpace(strings.Join(h.Values(name), ", "))
		if v == "" {
			switch {
			case name == "X-Frame-Options" && strings.Contains(strings.ToLower(csp), "frame-ancestors"):
				out.Present = append(out.Present, SecurityHeader{Name: name, Value: "", Note: "absent, but Content-Security-Policy frame-ancestors covers it"})
			case name == "Content-Security-Policy" && h.Get("Content-Security-Policy-Report-Only") != "":
				out.Missing = append(out.Missing, name)
				out.Present = append(out.Present, SecurityHeader{Name: "Content-Security-Policy-Report-Only",
					Value: page.CutBytes(h.Get("Content-Security-Policy-Report-Only"), maxHeaderValue), Note: "report-only: not enforced"})
			default:
				out.Missing = append(out.Missing, name)
			}
			continue
		}
		sh := SecurityHeader{Name: name, Value: page.CutBytes(v, maxHeaderValue)}
		lv := strings.ToLower(v)
		switch name {
		case "Strict-Transport-Security":
			if !https {
				sh.Note = "sent over http, where browsers ignore it"
			} else if age, ok := hstsMaxAge(lv); !ok {
				sh.Note = "no valid max-age"
			} else if age < 15552000 {
				sh.Note = "max-age under 180 days"
			}
		case "X-Content-Type-Options":
			if lv != "nosniff" {
				sh.Note = "should be nosniff"
			}
		case "X-Frame-Options":
			if lv != "deny" && lv != "sameorigin" {
				sh.Note = "should be DENY or SAMEORIGIN"
			}
		case "Content-Security-Policy":
			if strings.Contains(lv, "'unsafe-inline'") || strings.Contains(lv, "'unsafe-eval'") {
				sh.Note = "allows unsafe-inline or unsafe-eval"
			}
		case "Referrer-Policy":
			if strings.Contains(lv, "unsafe-url") {
				sh.Note = "unsafe-url leaks full URLs"
			}
		}
		out.Present = append(out.Present, sh)
	}
	return out
}

func hstsMaxAge(v string) (int64, bool) {
	for part := range strings.SplitSeq(v, ";") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && strings.TrimSpace(k) == "max-age" {
			n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64)
			return n, err == nil && n >= 0
		}
	}
	return 0, false
}

// tlsInfo describes the connection and verifies the chain the server sent
// against the configured roots (system roots by default) for host.
func (p *Tool) tlsInfo(cs *tls.ConnectionState, host string) *TLSInfo {
	info := &TLSInfo{
		Version: tls.VersionName(cs.Version),
		Cipher:  tls.CipherSuiteName(cs.CipherSuite),
		ALPN:    cs.NegotiatedProtocol,
		SANs:    []string{},
		Chain:   []string{},
	}
	if len(cs.PeerCertificates) == 0 {
		info.VerifyError = "the server sent no certificate"
		return info
	}
	leaf := cs.PeerCertificates[0]
	now := p.now()
	info.Subject = leaf.Subject.String()
	info.Issuer = leaf.Issuer.String()
	info.Serial = leaf.SerialNumber.Text(16)
	info.KeyType = keyType(leaf)
	info.NotBefore, info.NotAfter = leaf.NotBefore.UTC(), leaf.NotAfter.UTC()
	info.DaysLeft = int(leaf.NotAfter.Sub(now).Hours() / 24)
	info.SANs = append(info.SANs, leaf.DNSNames...)
	for _, ip := range leaf.IPAddresses {
		info.SANs = append(info.SANs, ip.String())
	}
	for _, u := range leaf.URIs {
		info.SANs = append(info.SANs, u.String())
	}
	info.OCSPServers = leaf.OCSPServer
	info.CRLURLs = leaf.CRLDistributionPoints
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates {
		info.Chain = append(info.Chain, c.Subject.String())
	}
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		DNSName:       host,
		Roots:         p.cfg.RootCAs, // nil: system roots
		Intermediates: inter,
		CurrentTime:   now,
	})
	if err != nil {
		info.VerifyError = err.Error()
	} else {
		info.ChainVerified = true
	}
	return info
}

func keyType(c *x509.Certificate) string {
	switch c.PublicKeyAlgorithm {
	case x509.RSA:
		if k, ok := c.PublicKey.(interface{ Size() int }); ok {
			return "RSA " + strconv.Itoa(k.Size()*8)
		}
		return "RSA"
	case x509.ECDSA:
		return "ECDSA " + ecdsaCurve(c)
	case x509.Ed25519:
		return "Ed25519"
	}
	return c.PublicKeyAlgorithm.String()
}

func ecdsaCurve(c *x509.Certificate) string {
	if k, ok := c.PublicKey.(*ecdsa.PublicKey); ok && k.Curve != nil {
		return k.Curve.Params().Name
	}
	return ""
}
