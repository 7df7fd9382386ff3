package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/needs"
	"github.com/openshelf/openshelf/serve/x402"
)

// interop returns node and the interop directory with its npm packages
// installed (scripts/setup.sh). Without them the test fails.
func interop(t *testing.T, pkgs ...string) (node, dir string) {
	t.Helper()
	needs.Heavy(t, "Node and the npm clients")
	dir, err := filepath.Abs(filepath.Join("..", "..", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	missing := func(what string) {
		t.Fatalf("interop: %s; run scripts/setup.sh (cd interop && npm ci)", what)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(p), "package.json")); err != nil {
			missing("npm package " + p + " is not installed in " + dir)
		}
	}
	return node, dir
}

// runNode runs a node program with HOME in a scratch directory (the
// Inspector writes ~/.mcp-inspector) and returns its exit code and output.
func runNode(t *testing.T, node, dir string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "NO_COLOR=1", "NODE_NO_WARNINGS=1",
		"npm_config_update_notifier=false", "DO_NOT_TRACK=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("node %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("node %v timed out; stderr: %s", args, stderr.String())
	}
	return code, stdout.String(), stderr.String()
}

// TestInteropTypeScriptClient drives the server with the official TS SDK
// client and pays with the x402 reference client (viem signature).
func TestInteropTypeScriptClient(t *testing.T) {
	node, dir := interop(t, "@modelcontextprotocol/sdk", "@x402/core", "@x402/evm", "viem")
	a := newApp(t, "")
	code, stdout, stderr := runNode(t, node, dir, "mcp-client.mjs", a.srv.URL+"/mcp")
	if code != 0 {
		t.Fatalf("mcp-client.mjs exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	steps := map[string]map[string]json.RawMessage{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line is not JSON: %q", sc.Text())
		}
		var step string
		json.Unmarshal(m["step"], &step)
		steps[step] = m
	}
	get := func(step, key string, v any) {
		t.Helper()
		m, ok := steps[step]
		if !ok {
			t.Fatalf("no %q step in output:\n%s\nstderr: %s", step, stdout, stderr)
		}
		if err := json.Unmarshal(m[key], v); err != nil {
			t.Fatalf("%s.%s: %v (%s)", step, key, err, m[key])
		}
	}

	var version string
	var session *string
	var caps map[string]json.RawMessage
	get("initialize", "protocolVersion", &version)
	get("initialize", "sessionId", &session)
	get("initialize", "capabilities", &caps)
	if version != "2025-06-18" || session != nil || len(caps) != 1 || string(caps["tools"]) != "{}" {
		t.Errorf("initialize: version %q, session %v, capabilities %v", version, session, caps)
	}

	var tools []struct {
		Name         string
		Description  string
		Annotations  map[string]bool
		InputSchema  map[string]any
		OutputSchema any
	}
	get("tools", "tools", &tools)
	byName := map[string]int{}
	for i, tl := range tools {
		byName[tl.Name] = i
	}
	for _, e := range a.app.Registry.Tools() {
		i, ok := byName[e.ToolName()]
		if !ok {
			t.Errorf("TS client does not see tool %s", e.ToolName())
			continue
		}
		tl := tools[i]
		if tl.Description != e.ToolDescription() || tl.OutputSchema != nil || tl.InputSchema["type"] != "object" ||
			!tl.Annotations["readOnlyHint"] || tl.Annotations["destructiveHint"] {
			t.Errorf("tool as the TS client sees it: %+v", tl)
		}
	}

	var searchErr bool
	var total int
	var doc string
	var ids []string
	get("search", "isError", &searchErr)
	get("search", "total", &total)
	get("search", "document", &doc)
	get("search", "ids", &ids)
	if searchErr || total < 1 || !strings.Contains(strings.Join(ids, ","), doc) {
		t.Errorf("search: isError %v, total %d, ids %v (want %s)", searchErr, total, ids, doc)
	}

	var pr x402.PaymentRequired
	var prErr bool
	var prText string
	get("payment_required", "isError", &prErr)
	get("payment_required", "structuredContent", &pr)
	get("payment_required", "text", &prText)
	if !prErr || pr.X402Version != 2 || pr.Resource.URL != a.base+"/api/document/"+doc || !strings.Contains(prText, `"accepts"`) {
		t.Errorf("payment required: isError %v, %+v", prErr, pr)
	}

	var paidErr bool
	var meta map[string]x402.SettlementResponse
	var payload x402.PaymentPayload
	var body struct{ ID string }
	get("paid", "isError", &paidErr)
	get("paid", "meta", &meta)
	get("paid", "payload", &payload)
	get("paid", "structuredContent", &body)
	r1 := meta["x402/payment-response"]
	if paidErr || !r1.Success || r1.Transaction == "" || body.ID != doc {
		t.Fatalf("paid: isError %v, receipt %+v, body %+v\nstderr: %s", paidErr, r1, body, stderr)
	}
	var replayMeta map[string]x402.SettlementResponse
	get("replay", "meta", &replayMeta)
	if r := replayMeta["x402/payment-response"]; r.Transaction != r1.Transaction {
		t.Errorf("replay receipt %+v, want tx %s", r, r1.Transaction)
	}
	// The TS-signed payment over HTTP as well: still one settlement.
	res, _ := a.httpGet(t, "/api/document/"+doc, &payload)
	if res.StatusCode != 200 || httpReceipt(t, res).Transaction != r1.Transaction {
		t.Errorf("HTTP with the TS payment: %d", res.StatusCode)
	}
	if n := a.settlements(t); n != 1 {
		t.Errorf("%d settlements", n)
	}

	var invErr bool
	var invText string
	get("invalid", "isError", &invErr)
	get("invalid", "text", &invText)
	if !invErr || invText != "invalid_input: limit: must be at most 50" {
		t.Errorf("invalid: %v %q", invErr, invText)
	}
	var thrown bool
	var rpcCode int
	get("unknown_tool", "thrown", &thrown)
	get("unknown_tool", "code", &rpcCode)
	if !thrown || rpcCode != -32602 {
		t.Errorf("unknown tool: thrown %v, code %d", thrown, rpcCode)
	}
}

// TestInteropInspector lists and calls tools with the MCP Inspector CLI.
func TestInteropInspector(t *testing.T) {
	node, dir := interop(t, "@modelcontextprotocol/inspector")
	cli := filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	a := newApp(t, "")
	url := a.srv.URL + "/mcp"

	code, stdout, stderr := runNode(t, node, dir, cli, "--cli", url, "--method", "tools/list")
	if code != 0 {
		t.Fatalf("inspector tools/list: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(jsonPart(stdout)), &list); err != nil {
		t.Fatalf("inspector output: %v\n%s", err, stdout)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	var want []string
	for _, e := range a.app.Registry.Tools() {
		want = append(want, e.ToolName())
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("inspector lists %v, want %v", names, want)
	}

	// A paid tool without payment: isError, which the CLI reports with exit
	// code 5, carrying the PaymentRequired.
	code, stdout, stderr = runNode(t, node, dir, cli, "--cli", url, "--method", "tools/call",
		"--tool-name", "get_document", "--tool-arg", "id=pmc-999999999")
	if code == 0 || !strings.Contains(stdout, "document_not_found") {
		t.Errorf("inspector missing document: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runNode(t, node, dir, cli, "--cli", url, "--method", "tools/call",
		"--tool-name", "list_topics")
	if code != 0 || !strings.Contains(stdout, `topics`) {
		t.Errorf("inspector list_topics: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// jsonPart returns the output from its first '{' on (the CLI may print
// notices before the JSON).
func jsonPart(s string) string {
	if i := strings.IndexByte(s, '{'); i >= 0 {
		return s[i:]
	}
	return s
}
