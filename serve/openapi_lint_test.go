package serve

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/internal/needs"
	"github.com/openshelf/openshelf/internal/testsnap"
)

// interopBin returns the path of an npm executable installed in interop/
// by scripts/setup.sh; without it the test fails (setup installs it).
func interopBin(t *testing.T, name string) string {
	t.Helper()
	needs.Heavy(t, "Node and the npm clients")
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed; run scripts/setup.sh")
	}
	p, err := filepath.Abs(filepath.Join("..", "interop", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed in interop/; run scripts/setup.sh (cd interop && npm ci)", name)
	}
	return p
}

// TestOpenAPIRedoclyLint lints the served /openapi.json with the
// ecosystem's linter, @redocly/cli, under its recommended rules: no error
// and no warning.
func TestOpenAPIRedoclyLint(t *testing.T) {
	redocly := interopBin(t, "redocly")
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	rec := httptest.NewRecorder()
	a.HTTP.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != 200 {
		t.Fatalf("/openapi.json: %d", rec.Code)
	}
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, rec.Body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), redocly, "lint", doc, "--extends=recommended", "--format=json")
	cmd.Dir = t.TempDir() // no redocly.yaml from anywhere else
	// No telemetry or update check: tests have no network.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out struct {
		Totals struct {
			Errors, Warnings int
		} `json:"totals"`
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("redocly lint: %v (%v)\n%s\n%s", err, runErr, stdout.Bytes(), stderr.Bytes())
	}
	for _, p := range out.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		t.Errorf("redocly %s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
	}
	if out.Totals.Errors != 0 || out.Totals.Warnings != 0 || runErr != nil {
		t.Fatalf("redocly lint: %d errors, %d warnings (%v)", out.Totals.Errors, out.Totals.Warnings, runErr)
	}
}
