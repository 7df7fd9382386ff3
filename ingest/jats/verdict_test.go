package jats

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
)

// TestLicenceVerdicts runs the real licence.Decide on the evidence of every
// fixture and compares the outcome with the "Expected pipeline verdict"
// column of the fixture folders' SOURCES.md. Verdicts that allow two
// outcomes ("ACCEPT ... or REJECT ...", "or manual review") only constrain
// the family when accepted.
func TestLicenceVerdicts(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rd := &Reader{Now: func() time.Time { return now }}
	rows := 0
	for _, dir := range []string{"biorxiv", "elife", "f1000", "plos", "pmc", "scielo"} {
		for file, verdict := range verdicts(t, fixtures.Path(t, "jats", dir, "SOURCES.md")) {
			rows++
			t.Run(dir+"/"+file, func(t *testing.T) {
				d := readFile(t, rd, filepath.Join(dir, file))
				got := d.Licence
				accept, reject := strings.Contains(verdict, "ACCEPT"), strings.Contains(verdict, "REJECT")
				either := accept && reject || strings.Contains(verdict, " or ")
				families := mentionedFamilies(verdict)
				switch {
				case got.Accepted && len(families) > 0 && !families[got.Family]:
					t.Errorf("accepted as %s, SOURCES.md says %q", got.Family, verdict)
				case either:
				case accept && !got.Accepted:
					t.Errorf("rejected (%s: %s), SOURCES.md says %q", got.Reason, got.Detail, verdict)
				case reject && got.Accepted:
					t.Errorf("accepted as %s, SOURCES.md says %q", got.Family, verdict)
				}
			})
		}
	}
	if rows != 55 {
		t.Errorf("%d verdict rows, want 55", rows)
	}
}

// verdicts reads the fixture table of a SOURCES.md: file name to the last
// column.
func verdicts(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		out[strings.Trim(cols[0], "`")] = cols[len(cols)-1]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mentionedFamilies(verdict string) map[licence.Family]bool {
	m := map[licence.Family]bool{}
	v := verdict
	if strings.Contains(v, "CC-BY-SA") {
		m[licence.CCBYSA] = true
		v = strings.ReplaceAll(v, "CC-BY-SA", "")
	}
	for _, f := range []licence.Family{licence.CCBY, licence.CC0, licence.PDM} {
		if strings.Contains(v, string(f)) {
			m[f] = true
		}
	}
	return m
}
