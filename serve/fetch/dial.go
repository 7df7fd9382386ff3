package fetch

import (
	"context"
	"net"
	"time"
)

// DialContext opens a connection under the same dial-time guard as the
// client's own requests: after DNS resolution, every address tried must be
// public and on an allowed port (or loopback with Config.AllowLoopback).
// It exists for the browser tools' forward proxy, which carries Chromium's
// traffic and so cannot use Do; a refusal is [ErrForbiddenTarget]. Callers
// still run CheckURL on the host name first for the name rules.
func (c *Client) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Resolver: c.cfg.Resolver, Control: c.control}
	conn, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, c.classify(ctx, address, err)
	}
	return conn, nil
}
