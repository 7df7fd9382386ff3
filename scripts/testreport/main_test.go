package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantFailed bool
		want       []string
	}{
		{
			name: "pass and skip",
			in: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: needs a GPU\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"pass","Package":"p","Elapsed":1.5}
`,
			want: []string{"ok  \tp\t1.500s", "--- SKIP: p TestB: b_test.go:9: needs a GPU", "1 passed, 0 failed, 1 skipped"},
		},
		{
			name: "failed test shows its output",
			in: `{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
{"Action":"fail","Package":"p","Elapsed":0.1}
`,
			wantFailed: true,
			want:       []string{"--- FAIL: p TestC", "got 1, want 2", "FAIL\tp", "0 passed, 1 failed, 0 skipped"},
		},
		{
			name:       "build failure",
			in:         "# p\np/x.go:1:1: syntax error\n" + `{"Action":"fail","Package":"p","Elapsed":0}` + "\n",
			wantFailed: true,
			want:       []string{"p/x.go:1:1: syntax error", "FAIL\tp"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			failed, err := report(strings.NewReader(tt.in), &out)
			if err != nil || failed != tt.wantFailed {
				t.Fatalf("failed=%v err=%v, want failed=%v", failed, err, tt.wantFailed)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
