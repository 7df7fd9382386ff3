package tools

import (
	"errors"
	"slices"
	"testing"
)

// TestShare: the first family's value is everyone's, made once, and Close
// closes every value, the last made first, reporting their errors.
func TestShare(t *testing.T) {
	var s Shared
	var closed []string
	errB := errors.New("b failed")
	opened := 0
	open := func(name string, err error) func() (*string, func() error, error) {
		return func() (*string, func() error, error) {
			opened++
			return &name, func() error { closed = append(closed, name); return err }, nil
		}
	}
	a1, err := Share(&s, "a", open("a", nil))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := Share(&s, "a", open("another a", nil))
	if err != nil || a2 != a1 || *a2 != "a" || opened != 1 {
		t.Fatalf("second Share of a: %v %v (opened %d), want the first value made once", *a2, err, opened)
	}
	if _, err := Share(&s, "b", open("b", errB)); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("cannot open")
	if _, err := Share(&s, "c", func() (*string, func() error, error) { return nil, nil, failed }); !errors.Is(err, failed) {
		t.Fatalf("failed open: %v, want %v", err, failed)
	}
	if err := s.Close(); !errors.Is(err, errB) {
		t.Errorf("Close: %v, want %v", err, errB)
	}
	if !slices.Equal(closed, []string{"b", "a"}) {
		t.Errorf("closed %v, want [b a]", closed)
	}
}
