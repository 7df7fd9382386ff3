package feed_test

import (
	"net/http/httptest"
	"testing"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/feed"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

// The fake site serves the web family's shared testdata.
type route = webtest.Route

func fakeSite(t testing.TB, routes map[string]route) *httptest.Server {
	return webtest.StartSite(t, "../testdata", routes)
}

// newTool returns the tool on a client that may reach loopback.
func newTool(t testing.TB, cfg feed.Config) *feed.Tool {
	t.Helper()
	fc := fetch.New(fetch.Config{AllowLoopback: true})
	t.Cleanup(fc.Close)
	return feed.New(fc, cfg)
}

var wantAPI = webtest.WantAPI
