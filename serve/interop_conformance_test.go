package serve

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/testsnap"
)

// conformanceScenarios are the scenarios of the official MCP conformance
// suite (@modelcontextprotocol/conformance) that apply to a stateless,
// tools-only server. The others test capabilities this server does not
// offer (logging, completion, resources, prompts, sampling, elicitation,
// SSE streams) or call fixed test tools (test_simple_text,
// test_error_handling, json_schema_2020_12_tool, ...) that only the suite's
// reference server has: tools-call-error and json-schema-2020-12 fail here
// only because those tools do not exist.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"}

// TestMCPConformance runs the official MCP conformance suite against /mcp
// of the app served on a loopback port: every applicable scenario passes.
func TestMCPConformance(t *testing.T) {
	bin := interopBin(t, "conformance")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	a := newTestApp(t, testsnap.Fixtures(t), func(c *Config) { c.BaseURL = base })
	srv := &http.Server{Handler: a.HTTP, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.CommandContext(t.Context(), bin, "server", "--url", base+"/mcp", "--scenario", sc, "-o", out)
			cmd.Dir = filepath.Dir(filepath.Dir(filepath.Dir(bin))) // interop/
			b, runErr := cmd.CombinedOutput()
			checks := readConformanceChecks(t, out)
			if len(checks) == 0 {
				t.Fatalf("no checks recorded (%v):\n%s", runErr, b)
			}
			for _, c := range checks {
				if c.Status == "FAILURE" || c.Status == "WARNING" {
					t.Errorf("%s: %s: %s %s", c.ID, c.Status, c.Description, c.ErrorMessage)
				}
			}
			if runErr != nil {
				t.Errorf("conformance: %v\n%s", runErr, b)
			}
		})
	}
}

type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// readConformanceChecks reads every checks.json the suite wrote under dir.
func readConformanceChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	var all []conformanceCheck
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cs []conformanceCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		all = append(all, cs...)
		return nil
	})
	return all
}
