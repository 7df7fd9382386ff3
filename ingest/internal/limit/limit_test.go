package limit

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCheckJSON(t *testing.T) {
	huge := strings.Repeat("x", FieldBytes+1)
	many := "[" + strings.Repeat("1,", ArrayLen) + "1]"
	manyObjs := "[" + strings.Repeat(`{"key":"r"},`, ArrayLen) + `{"key":"r"}]`
	deep := strings.Repeat("[", Depth+1) + strings.Repeat("]", Depth+1)
	for _, tc := range []struct {
		name, in, field string
	}{
		{"ok", `{"title":["A \"quoted\" title"],"reference":[{"key":"1"}],"n":[1,2,3]}`, ""},
		{"huge title", `{"DOI":"10.1/x","title":["` + huge + `"]}`, "title[0]"},
		{"huge abstract", `{"abstract":"` + huge + `"}`, "abstract"},
		{"many numbers", `{"counts":` + many + `}`, "counts[50000]"},
		{"1M references", `{"DOI":"10.1/x","reference":` + manyObjs + `}`, "reference[50000]"},
		{"deep", `{"a":` + deep + `}`, "a" + strings.Repeat("[0]", Depth-1)},
		{"nested keys", `{"author":[{"affiliation":[{"name":"` + huge + `"}]}]}`, "author[0].affiliation[0].name"},
	} {
		err := CheckJSON([]byte(tc.in))
		var tl *TooLarge
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &tl) || tl.Field != tc.field || !errors.Is(err, ErrTooLarge)):
			t.Errorf("%s: got %v, want field %q", tc.name, err, tc.field)
		}
	}
}

func TestBudget(t *testing.T) {
	b := &Budget{R: bytes.NewReader(make([]byte, 100)), Max: 10}
	buf := make([]byte, 8)
	b.Read(buf)
	b.Reset()
	b.Read(buf)
	if _, err := b.Read(buf); err != nil {
		t.Fatalf("within budget: %v", err)
	}
	if _, err := b.Read(buf); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over budget: %v", err)
	}
}

func TestExpansion(t *testing.T) {
	src := &Counter{R: bytes.NewReader(make([]byte, 1000))}
	src.Read(make([]byte, 1000))
	x := &Expansion{R: io.LimitReader(zeros{}, RatioFloor+1<<20), In: func() int64 { return src.N }}
	_, err := io.Copy(io.Discard, x)
	if !errors.Is(err, ErrBomb) {
		t.Fatalf("got %v", err)
	}
	x = &Expansion{R: io.LimitReader(zeros{}, 10<<20), In: func() int64 { return 1 }}
	if _, err := io.Copy(io.Discard, x); err != nil {
		t.Fatalf("under the floor: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
