package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/needs"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
	"github.com/openshelf/openshelf/serve/x402/facilitatortest"
)

// x402Interop returns node and the interop directory with the x402 client
// packages installed (scripts/setup.sh). Without them the test fails: setup
// installs them.
func x402Interop(t *testing.T) (node, dir string) {
	t.Helper()
	needs.Heavy(t, "Node and the npm clients")
	dir, err := filepath.Abs(filepath.Join("..", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	missing := func(what string) {
		t.Fatalf("x402 interop: %s; run scripts/setup.sh (cd interop && npm ci)", what)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	for _, p := range []string{"@x402/fetch", "@x402/core", "@x402/evm", "viem"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(p), "package.json")); err != nil {
			missing("npm package " + p + " is not installed in " + dir)
		}
	}
	return node, dir
}

// bought is one line of interop/x402-buy.mjs.
type bought struct {
	Path   string `json:"path"`
	Payer  string `json:"payer"`
	Unpaid struct {
		Status          int                   `json:"status"`
		PaymentRequired *x402.PaymentRequired `json:"paymentRequired"`
	} `json:"unpaid"`
	Status          int                      `json:"status"`
	ContentType     string                   `json:"contentType"`
	ContentEncoding *string                  `json:"contentEncoding"`
	JSON            map[string]any           `json:"json"`
	Lines           []map[string]any         `json:"lines"`
	Receipt         *x402.SettlementResponse `json:"receipt"`
	Error           string                   `json:"error"`
}

// TestInteropX402Fetch buys each paid resource with the x402 reference
// client (@x402/fetch + @x402/evm, viem signatures) from the app served on
// a loopback port whose URL is its base URL: once with the local
// facilitator, once through an HTTP facilitator speaking the real API.
func TestInteropX402Fetch(t *testing.T) {
	node, dir := x402Interop(t)
	for _, mode := range []string{"local", "http"} {
		t.Run(mode, func(t *testing.T) {
			var fac *facilitatortest.Server
			if mode == "http" {
				fac = facilitatortest.New(nil)
				defer fac.Close()
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			base := "http://" + ln.Addr().String()
			a := newTestApp(t, testsnap.Copy(t), func(c *Config) {
				c.BaseURL = base
				if fac != nil {
					c.Facilitator = fac.URL
				}
			})
			srv := &http.Server{Handler: a.HTTP, ReadHeaderTimeout: 10 * time.Second}
			go srv.Serve(ln)
			defer srv.Close()

			f := findPaidFixture(t, a.HTTP)
			paths := f.resources()
			key := "0x" + payerKey
			out := runBuyer(t, node, dir, key, base, paths)
			if len(out) != len(paths) {
				t.Fatalf("buyer printed %d results for %d paths", len(out), len(paths))
			}
			for i, b := range out {
				if b.Path != paths[i] || b.Error != "" {
					t.Fatalf("%s: client error: %s", b.Path, b.Error)
				}
				pr := b.Unpaid.PaymentRequired
				if b.Unpaid.Status != 402 || pr == nil || len(pr.Accepts) != 1 || pr.Resource.URL != base+b.Path {
					t.Errorf("%s: unpaid answer %d %+v", b.Path, b.Unpaid.Status, pr)
				}
				if b.Status != 200 {
					t.Errorf("%s: paid answer %d %v", b.Path, b.Status, b.JSON)
					continue
				}
				r := b.Receipt
				if r == nil || !r.Success || r.Transaction == "" || r.Network != x402.NetworkBase || !strings.EqualFold(r.Payer, b.Payer) {
					t.Errorf("%s: receipt %+v", b.Path, r)
				}
				if strings.HasSuffix(b.Path, "/content") {
					if !strings.HasPrefix(b.ContentType, "application/x-ndjson") || len(b.Lines) == 0 {
						t.Errorf("%s: bundle %q with %d lines", b.Path, b.ContentType, len(b.Lines))
					}
					for _, l := range b.Lines {
						checkRights(t, b.Path, l)
					}
					continue
				}
				if b.JSON["id"] != f.doc || b.JSON["title"] == "" {
					t.Errorf("%s: content %v", b.Path, b.JSON)
				}
				checkRights(t, b.Path, b.JSON)
			}
			// One settlement per resource, on our ledger and, in http mode,
			// at the facilitator.
			if n := settledCount(t, a); n != len(paths) {
				t.Errorf("%d settlements, want %d", n, len(paths))
			}
			if fac != nil {
				if v, s := fac.Counts(); v != len(paths) || s != len(paths) {
					t.Errorf("facilitator answered %d verifies and %d settles, want %d each", v, s, len(paths))
				}
			}
			if m := paymentMetrics(t, a.HTTP); m["settled"] != len(paths) || m["required"] < len(paths) {
				t.Errorf("payment metrics %v", m)
			}
		})
	}
}

func runBuyer(t *testing.T, node, dir, key, base string, paths []string) []bought {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"x402-buy.mjs", base}, paths...)...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1", "NODE_NO_WARNINGS=1", "EVM_PRIVATE_KEY="+key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := errors.AsType[*exec.ExitError](err); !ok || ctx.Err() != nil {
			t.Fatalf("node x402-buy.mjs: %v; stderr: %s", err, stderr.String())
		}
		t.Fatalf("node x402-buy.mjs failed: %v\nstderr: %s\nstdout: %s", err, stderr.String(), stdout.String())
	}
	var out []bought
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var b bought
		if err := dec.Decode(&b); err != nil {
			t.Fatalf("buyer output: %v", err)
		}
		out = append(out, b)
	}
	return out
}
