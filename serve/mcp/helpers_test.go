package mcp_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/mcp"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
)

// testBase is the public URL the test servers claim, as behind a proxy.
const testBase = "https://openshelf.test"

type echoInput struct {
	Text  string `json:"text" minLength:"1" maxLength:"10" doc:"Text to echo."`
	Limit int    `json:"limit,omitempty" min:"1" max:"50" default:"10" doc:"A bounded number."`
}

type thingInput struct {
	ID string `json:"id" in:"path" pattern:"^[a-z]{1,10}$" doc:"Thing id."`
}

type bigInput struct {
	N int `json:"n" min:"1" max:"100000" doc:"Number of items."`
}

// bigValue is a JSON object of about 40·n bytes with multi-byte runes, so
// cuts have to respect UTF-8.
func bigValue(n int) map[string]any {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("item %05d: Zürich–Straße ✓ <&>", i)
	}
	return map[string]any{"count": n, "items": items}
}

// testEnv is a registry of small tools, the x402 core and the /mcp handler
// on a loopback server.
type testEnv struct {
	reg    *registry.Registry
	ledger *x402.Ledger
	core   *x402.Core
	key    *ecdsa.PrivateKey
	srv    *httptest.Server
	url    string // the /mcp URL
	runs   atomic.Int64
}

type envOption func(*envConfig)

type envConfig struct {
	mcp         mcp.Config
	facilitator x402.Facilitator
}

func newEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	env := &testEnv{}
	env.reg = registry.New()
	env.reg.Add(
		registry.Spec[echoInput]{
			Name: "echo", Method: http.MethodGet, Path: "/echo", Group: registry.GroupDiscovery,
			Summary: "Echo the text.",
			Tool:    &registry.Tool{Name: "echo_text"},
			Handle: func(_ context.Context, in *echoInput) (*registry.Result, error) {
				return &registry.Result{Value: map[string]any{"text": in.Text, "limit": in.Limit, "html": "<b>&</b>"}}, nil
			},
		}.Endpoint(),
		registry.Spec[thingInput]{
			Name: "thing", Method: http.MethodGet, Path: "/things/:id", Group: registry.GroupArchive,
			Price: "0.001", Summary: "A thing.",
			Tool: &registry.Tool{Name: "get_thing", Description: "Get a thing", OpenWorld: true},
			Check: func(_ context.Context, in *thingInput) error {
				if in.ID == "missing" {
					return apierr.NotFound("thing_not_found", "no thing "+in.ID)
				}
				return nil
			},
			Handle: func(_ context.Context, in *thingInput) (*registry.Result, error) {
				env.runs.Add(1)
				if in.ID == "fail" {
					return nil, io.ErrUnexpectedEOF
				}
				return &registry.Result{Value: map[string]any{"id": in.ID}}, nil
			},
		}.Endpoint(),
		registry.Spec[bigInput]{
			Name: "big", Method: http.MethodGet, Path: "/big", Group: registry.GroupDiscovery,
			Summary: "A big result.", Tool: &registry.Tool{},
			Handle: func(_ context.Context, in *bigInput) (*registry.Result, error) {
				return &registry.Result{Value: bigValue(in.N)}, nil
			},
		}.Endpoint(),
		registry.Spec[thingInput]{
			Name: "bigpaid", Method: http.MethodGet, Path: "/bigpaid/:id", Group: registry.GroupArchive,
			Price: "0.002", Summary: "A big paid result.", Tool: &registry.Tool{},
			Handle: func(_ context.Context, in *thingInput) (*registry.Result, error) {
				env.runs.Add(1)
				// Rights fields as a document has them; they sort after
				// the items, so a cut leaves them in a late part.
				v := bigValue(200)
				v["license"], v["license_url"] = "CC-BY-4.0", "https://creativecommons.org/licenses/by/4.0/"
				v["attribution"], v["copyright_notice"] = "A. Author, Title, Journal (2020), CC BY 4.0", "© 2020 A. Author"
				return &registry.Result{Value: v}, nil
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "text", Method: http.MethodGet, Path: "/text", Group: registry.GroupDiscovery,
			Summary: "A text body.", Tool: &registry.Tool{Name: "get_text"}, ContentType: "text/markdown",
			Handle: func(_ context.Context, _ *registry.NoInput) (*registry.Result, error) {
				return &registry.Result{Body: io.NopCloser(strings.NewReader("# Title\n\nbody ✓\n")), ContentType: "text/markdown"}, nil
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "http_only", Method: http.MethodGet, Path: "/http-only", Group: registry.GroupDiscovery,
			Summary: "Not a tool.",
			Handle: func(_ context.Context, _ *registry.NoInput) (*registry.Result, error) {
				return &registry.Result{Value: map[string]any{}}, nil
			},
		}.Endpoint(),
	)
	env.reg.Freeze()
	var err error
	env.ledger, err = x402.OpenLedger(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.ledger.Close() })
	ec := envConfig{facilitator: x402.NewLocal(env.ledger)}
	for _, o := range opts {
		o(&ec)
	}
	env.core, err = x402.New(x402.Config{PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		Facilitator: ec.facilitator, Ledger: env.ledger})
	if err != nil {
		t.Fatal(err)
	}
	if env.key, err = crypto.GenerateKey(); err != nil {
		t.Fatal(err)
	}
	cfg := ec.mcp
	cfg.Registry, cfg.Core, cfg.BaseURL = env.reg, env.core, testBase
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.New(cfg))
	env.srv = httptest.NewServer(mux)
	t.Cleanup(env.srv.Close)
	env.url = env.srv.URL + "/mcp"
	return env
}

func withMCP(f func(*mcp.Config)) envOption { return func(c *envConfig) { f(&c.mcp) } }

func withFacilitator(f x402.Facilitator) envOption {
	return func(c *envConfig) { c.facilitator = f }
}

// connect opens a Go SDK client session on url.
func connect(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "openshelf-test", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: mcp.ProtocolVersion})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any, meta sdk.Meta) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text returns the text of content block i.
func text(t *testing.T, res *sdk.CallToolResult, i int) string {
	t.Helper()
	if len(res.Content) <= i {
		t.Fatalf("result has %d content blocks, want > %d: %+v", len(res.Content), i, res)
	}
	tc, ok := res.Content[i].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content[%d] is %T", i, res.Content[i])
	}
	return tc.Text
}

// remarshal converts between JSON-shaped values.
func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// paymentRequired checks that res is an x402 payment-required result, with
// the same object in structuredContent and content[0], and returns it.
func paymentRequired(t *testing.T, res *sdk.CallToolResult) x402.PaymentRequired {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an isError payment result, got %+v", res)
	}
	var fromText, fromStruct x402.PaymentRequired
	if err := json.Unmarshal([]byte(text(t, res, 0)), &fromText); err != nil {
		t.Fatalf("content[0] is not a PaymentRequired: %v", err)
	}
	remarshal(t, res.StructuredContent, &fromStruct)
	a, _ := json.Marshal(fromText)
	b, _ := json.Marshal(fromStruct)
	if string(a) != string(b) {
		t.Errorf("structuredContent %s != content[0] %s", b, a)
	}
	if fromText.X402Version != 2 || len(fromText.Accepts) == 0 {
		t.Fatalf("not a PaymentRequired: %s", a)
	}
	return fromText
}

// toolError checks an isError result carrying the API error envelope and
// returns it.
func toolError(t *testing.T, res *sdk.CallToolResult) apierr.BodyError {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want isError, got %+v", res)
	}
	var env struct {
		Error       apierr.BodyError `json:"error"`
		X402Version int              `json:"x402Version"`
	}
	remarshal(t, res.StructuredContent, &env)
	if env.X402Version != 0 {
		t.Fatalf("error result asks for payment: %+v", res.StructuredContent)
	}
	if env.Error.Code == "" {
		t.Fatalf("no error envelope in %+v", res.StructuredContent)
	}
	if want := env.Error.Code + ": " + env.Error.Message; text(t, res, 0) != want {
		t.Errorf("content[0] = %q, want %q", text(t, res, 0), want)
	}
	return env.Error
}

func receipt(t *testing.T, res *sdk.CallToolResult) x402.SettlementResponse {
	t.Helper()
	raw, ok := res.Meta[mcp.MetaPaymentResponse]
	if !ok {
		t.Fatalf("no %s in result _meta: %+v", mcp.MetaPaymentResponse, res.Meta)
	}
	var r x402.SettlementResponse
	remarshal(t, raw, &r)
	return r
}

func (env *testEnv) settlements(t *testing.T) int {
	t.Helper()
	n, unknown, err := env.ledger.CountSettlements(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if unknown != 0 {
		t.Errorf("%d settlements with unknown outcome", unknown)
	}
	return n
}

func (env *testEnv) pay(t *testing.T, pr x402.PaymentRequired) *x402.PaymentPayload {
	t.Helper()
	p, err := x402.NewPayment(env.key, pr, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rawPost sends one JSON-RPC body to url with MCP's usual headers, changed
// by hdr ("" deletes a header).
func rawPost(t *testing.T, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}
