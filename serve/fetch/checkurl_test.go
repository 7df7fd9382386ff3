package fetch_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

func TestCheckURLAccepts(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"https://example.com/a?b=c#d", "https://example.com/a?b=c#d"},
		{"  http://Example.COM./path  ", "http://example.com/path"},
		{"HTTP://example.com", "http://example.com"},
		{"http://example.com:80/", "http://example.com:80/"},
		{"http://example.com:/", "http://example.com/"},
		{"https://bücher.example/", "https://xn--bcher-kva.example/"},
		{"http://r3---sn-abc.googlevideo.com/v", "http://r3---sn-abc.googlevideo.com/v"},
		{"http://93.184.215.14/", "http://93.184.215.14/"},
		{"http://1.1.1.1./", "http://1.1.1.1/"},
		{"http://16843009/", "http://1.1.1.1/"}, // decimal spelling of a public address
		{"http://[2606:4700:4700::1111]/", "http://[2606:4700:4700::1111]/"},
		{"http://[2606:4700:4700:0::1111]:443/", "http://[2606:4700:4700::1111]:443/"},
	}
	for _, tt := range tests {
		u, err := fetch.CheckURL(tt.in)
		if err != nil {
			t.Errorf("CheckURL(%q): %v", tt.in, err)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("CheckURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckURLRefuses(t *testing.T) {
	tests := []struct {
		in      string
		message string // a fragment of the client-facing message
	}{
		{"", "empty"},
		{"http://example.com/" + strings.Repeat("a", 2048), "longer than"},
		{"ftp://example.com/", "only http and https"},
		{"file:///etc/passwd", "only http and https"},
		{"gopher://example.com:70/", "only http and https"},
		{"javascript:alert(1)", "only http and https"},
		{"http:example.com", "no host"},
		{"http:///path", "no host"},
		{"//example.com/", "only http and https"},
		{"http://user:pass@example.com/", "user name or password"},
		{"http://example.com@127.0.0.1/", "user name or password"},
		{"http://example.com:0/", "invalid port"},
		{"http://example.com:65536/", "invalid port"},
		{"http://exa mple.com/", "not a valid URL"},
		{"http://%31%32%37.0.0.1/", "not a valid URL"},
		{"http://1.2.3.4.5/", "neither a valid IPv4"},
		{"http://example.123/", "neither a valid IPv4"},
		{"http://256.0.0.1/", "neither a valid IPv4"},
		{"http://0x100000000/", "neither a valid IPv4"},
		{"http://exa$mple.com/", "invalid host name"},
		{"http://intranet/", "private-network name"},
		{"http://metadata/", "fully qualified"},
		{"http://" + strings.Repeat("a", 64) + ".com/", "invalid host name"},
		{"http://[::1/", "not a valid URL"},
		{"http://[1.2.3.4]/", "not a valid URL"},
	}
	for _, tt := range tests {
		_, err := fetch.CheckURL(tt.in)
		if err == nil {
			t.Errorf("CheckURL(%q) accepted", tt.in)
			continue
		}
		assertAPI(t, tt.in, err, http.StatusBadRequest, "invalid_input")
		if !errors.Is(err, fetch.ErrInvalidURL) || !errors.Is(err, apierr.ErrInvalidInput) {
			t.Errorf("CheckURL(%q): %v is not ErrInvalidURL/ErrInvalidInput", tt.in, err)
		}
		if ae := apierr.From(err); !strings.Contains(ae.Message, tt.message) || ae.Field != "url" {
			t.Errorf("CheckURL(%q): message %q field %q, want fragment %q and field url", tt.in, ae.Message, ae.Field, tt.message)
		}
	}
}

func TestClientCheckURLPorts(t *testing.T) {
	c := fetch.New(fetch.Config{})
	for _, ok := range []string{"http://example.com/", "https://example.com/", "http://example.com:443/", "https://example.com:80/"} {
		if _, err := c.CheckURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://example.com:8080/", "https://example.com:22/", "http://example.com:6379/"} {
		_, err := c.CheckURL(bad)
		assertAPI(t, bad, err, http.StatusBadRequest, "invalid_input")
	}
	// The package-level check leaves ports to the client.
	if _, err := fetch.CheckURL("http://example.com:8080/"); err != nil {
		t.Errorf("package CheckURL refused a port: %v", err)
	}
	c = fetch.New(fetch.Config{AllowedPorts: []int{8443}})
	if _, err := c.CheckURL("https://example.com:8443/"); err != nil {
		t.Errorf("configured port refused: %v", err)
	}
	if _, err := c.CheckURL("https://example.com/"); err == nil {
		t.Errorf("443 accepted although only 8443 is configured")
	}
}

func TestAllowLoopbackOnlyLoopback(t *testing.T) {
	c := fetch.New(fetch.Config{AllowLoopback: true})
	for _, ok := range []string{"http://127.0.0.1:8080/", "http://[::1]:1/", "http://localhost:3000/", "http://127.1/"} {
		if _, err := c.CheckURL(ok); err != nil {
			t.Errorf("AllowLoopback refused %s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00:ec2::254]/", "http://192.168.0.1:8080/", "http://printer.local/"} {
		_, err := c.CheckURL(bad)
		assertAPI(t, bad, err, http.StatusBadRequest, "invalid_input")
	}
}

// assertAPI checks the status and stable code err maps to.
func assertAPI(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %d %s", what, status, code)
		return
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		t.Errorf("%s: %v is not an apierr", what, err)
		return
	}
	if ae.Status != status || ae.Code != code {
		t.Errorf("%s: got %d %s (%v), want %d %s", what, ae.Status, ae.Code, err, status, code)
	}
	if ae.Message == "" {
		t.Errorf("%s: empty message", what)
	}
}
