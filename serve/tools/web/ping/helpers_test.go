package ping

import (
	"net"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

// newLoopbackTool returns a Tool whose fetch client may reach loopback
// test servers, by address or as site.example.com (see siteURL).
func newLoopbackTool(t *testing.T, fcfg fetch.Config, cfg Config) *Tool {
	t.Helper()
	fcfg.AllowLoopback = true
	if fcfg.Resolver == nil {
		fcfg.Resolver = webtest.StartDNS(t, "site.example.com. 60 IN A 127.0.0.1").Resolver()
	}
	fc := fetch.New(fcfg)
	t.Cleanup(fc.Close)
	return New(fc, cfg)
}

// siteURL is srv's URL with the host name site.example.com, which the
// tools of newLoopbackTool resolve to loopback: a name, so that the test
// goes through DNS resolution and the dial-time check as production does.
func siteURL(srv *httptest.Server) string {
	return "http://site.example.com:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
}
