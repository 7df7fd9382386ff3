// Package ping is the ping_status tool: whether a URL is up, its status,
// response time, redirect chain, security headers and TLS certificate.
//
// An unreachable target (DNS failure, refused connection, timeout) is an
// answer with up=false and the reason, not an error; a target the guarded
// client refuses is 403 forbidden_target. Every hop of a redirect chain is
// checked by the client before it is followed.
package ping
