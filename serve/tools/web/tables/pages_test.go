package tables

import (
	"slices"
	"testing"
)

func TestParsePages(t *testing.T) {
	tests := []struct {
		spec string
		n    int
		want []int
		perr bool // parse error
		rerr bool // resolve error
	}{
		{spec: "", n: 3, want: []int{1, 2, 3}},
		{spec: "", n: 100, want: seq(1, 30)},
		{spec: "1-3,5", n: 10, want: []int{1, 2, 3, 5}},
		{spec: " 5 , 1-2 ,2", n: 10, want: []int{1, 2, 5}},
		{spec: "8-", n: 10, want: []int{8, 9, 10}},
		{spec: "3-5", n: 4, want: []int{3, 4}},
		{spec: "1-30", n: 50, want: seq(1, 30)},
		{spec: "40-", n: 100, rerr: true}, // 61 pages
		{spec: "20-", n: 10, rerr: true},  // nothing left
		{spec: "11", n: 10, rerr: true},   // past the end
		{spec: "1-31", n: 50, perr: true}, // too many
		{spec: "1-20,21-31", perr: true},  // too many in total
		{spec: "0", perr: true},           // pages start at 1
		{spec: "3-1", perr: true},         // backwards
		{spec: "1,,2", perr: true},        // empty item
		{spec: "a", perr: true},           // not a number
		{spec: "-3", perr: true},          // no start
		{spec: "1-2-3", perr: true},       // not a range
		{spec: "+1", perr: true},          // sign
		{spec: "99999999999999999999", perr: true},
	}
	for _, tt := range tests {
		spec, err := parsePages(tt.spec)
		if (err != nil) != tt.perr {
			t.Errorf("parsePages(%q) error = %v, want error %v", tt.spec, err, tt.perr)
			continue
		}
		if err != nil {
			continue
		}
		got, err := spec.resolve(tt.n)
		if (err != nil) != tt.rerr {
			t.Errorf("%q.resolve(%d) error = %v, want error %v", tt.spec, tt.n, err, tt.rerr)
			continue
		}
		if err == nil && !slices.Equal(got, tt.want) {
			t.Errorf("%q.resolve(%d) = %v, want %v", tt.spec, tt.n, got, tt.want)
		}
	}
}

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// FuzzPages: a selection parses or fails cleanly, and resolves to sorted,
// unique pages within the document and the page cap.
func FuzzPages(f *testing.F) {
	for _, s := range []string{"", "1-3,5", "10-", "1-30", "0", "3-1", "1,,2", " 7 ", "1-2-3", "5-,1-"} {
		f.Add(s, 12)
	}
	f.Add("1-", 1<<40)
	f.Fuzz(func(t *testing.T, s string, n int) {
		spec, err := parsePages(s)
		if err != nil {
			return
		}
		pages, err := spec.resolve(n)
		if err != nil {
			return
		}
		if len(pages) == 0 || len(pages) > maxPDFPages {
			t.Fatalf("%q on %d pages: %d pages selected", s, n, len(pages))
		}
		for i, p := range pages {
			if p < 1 || p > n || (i > 0 && p <= pages[i-1]) {
				t.Fatalf("%q on %d pages: bad list %v", s, n, pages)
			}
		}
	})
}
