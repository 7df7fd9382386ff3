package alarm

import (
	"context"
	"errors"
	"net/http"

	"github.com/openshelf/openshelf/serve/fetch"
)

// Sender sends one delivery: a POST of body with header to url. It returns
// the receiver's status, or an error when no answer came. Production sends
// through the guarded client (FetchSender); tests plug in fakes.
type Sender interface {
	Send(ctx context.Context, url string, body []byte, header http.Header) (status int, err error)
}

// maxResponseBytes caps what is read of a receiver's answer: only the
// status matters.
const maxResponseBytes = 16 << 10

// FetchSender sends through the guarded client c: the SSRF guard checks
// every connection after DNS resolution, robots.txt is not consulted (the
// URL's owner asked for these requests), and redirects are not followed: a
// 3xx is a failed attempt, so a signed payload never goes to a host the
// alarm did not name.
func FetchSender(c *fetch.Client) Sender { return fetchSender{c} }

type fetchSender struct{ c *fetch.Client }

func (f fetchSender) Send(ctx context.Context, url string, body []byte, header http.Header) (int, error) {
	res, err := f.c.Do(ctx, http.MethodPost, url, fetch.Options{
		Header: header, Body: body, IgnoreRobots: true, NoFollow: true,
		MaxBytes: maxResponseBytes, AllowTruncated: true,
	})
	if err != nil {
		return 0, err
	}
	return res.Status, nil
}

// errorText is the history text of a failed send: the client-safe message
// of fetch errors (never the internal cause, which can name addresses).
func errorText(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe.Kind.Code + ": " + fe.Msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "upstream_timeout: the request timed out"
	}
	return "upstream_error: " + err.Error()
}
