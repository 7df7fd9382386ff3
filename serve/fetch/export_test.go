package fetch

import (
	"net/netip"
	"time"
)

// SetTestPublic makes the client treat addresses for which f is true as
// public, so a test can stand up a "public" server on loopback while
// every other loopback address stays refused. Test builds only.
func SetTestPublic(c *Config, f func(netip.AddrPort) bool) { c.testPublic = f }

// SetClock replaces the robots cache clock. Test builds only.
func SetClock(c *Config, now func() time.Time) { c.now = now }
