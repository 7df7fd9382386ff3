package fetch

import (
	"crypto/tls"
	"net/http"
	"sync"
)

// insecureClient is built on first use from the client's transport, so it
// dials through the same guarded dialer; only certificate verification is
// off. It serves Options.InsecureTLS alone.
type insecureClient struct {
	once sync.Once
	hc   *http.Client
}

// httpClient returns the HTTP client for opts.
func (c *Client) httpClient(opts Options) *http.Client {
	if !opts.InsecureTLS {
		return c.hc
	}
	c.insecure.once.Do(func() {
		tr := c.hc.Transport.(*http.Transport).Clone()
		// The certificate is verified by the caller, from
		// Response.TLS, against the roots it chooses.
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // see Options.InsecureTLS
		c.insecure.hc = &http.Client{Transport: tr, CheckRedirect: c.hc.CheckRedirect}
	})
	return c.insecure.hc
}
