package catalog

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// write writes a catalog of recs and aliases (alias, id pairs) and opens it.
func write(t testing.TB, recs []Record, aliases [][2]string) (*Reader, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w, err := NewWriter(bw, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range aliases {
		if err := w.AddAlias(a[0], a[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if left, _ := filepath.Glob(filepath.Join(dir, "catalog-offsets-*")); len(left) > 0 {
		t.Fatalf("scratch files left: %v", left)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, path
}

func sample(n int) []Record {
	var recs []Record
	for i := range n {
		recs = append(recs, Record{
			ID: fmt.Sprintf("doi-10.1000/%06d", i), Title: fmt.Sprintf("Title %d", i),
			Authors: []string{"A. Author", fmt.Sprintf("B. %d", i)}[:1+i%2], Year: int32(1990 + i%30),
			Venue: []string{"", "Nature", "PLoS ONE"}[i%3], Topics: []string{"biology", "physics"}[:1+i%2],
			License: "cc-by", LicenseURL: "https://creativecommons.org/licenses/by/4.0/", Flags: byte(i % 4),
		})
	}
	return recs
}

func TestRoundTrip(t *testing.T) {
	recs := sample(1000)
	aliases := [][2]string{
		{"doi-10.1000/000003", "doi-10.1000/000003"}, // its own id: not stored
		{"pmc-1", "doi-10.1000/000007"},
		{"pmid-5", "doi-10.1000/000999"},
		{"pmid-6", "doi-missing"}, // an alias of a document not in the catalog
	}
	r, _ := write(t, recs, aliases)
	if r.Len() != len(recs) || r.na != 3 {
		t.Fatalf("Len %d, aliases %d", r.Len(), r.na)
	}
	for i, want := range recs {
		got, err := r.Record(int32(i))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("doc %d: got %+v, want %+v", i, got, want)
		}
	}
	for _, c := range []struct {
		name string
		doc  int32
	}{
		{"doi-10.1000/000000", 0}, {"doi-10.1000/000999", 999}, {"doi-10.1000/000003", 3},
		{"pmc-1", 7}, {"pmid-5", 999}, {"pmid-6", -1}, {"pmid-7", -1}, {"", -1}, {"zzz", -1},
	} {
		if got := r.Lookup(c.name); got != c.doc {
			t.Errorf("Lookup(%q) = %d, want %d", c.name, got, c.doc)
		}
	}
	if got := r.After("doi-10.1000/000010"); got != 11 {
		t.Errorf("After = %d, want 11", got)
	}
	if got := r.After("doi-10.1000/000010a"); got != 11 {
		t.Errorf("After between ids = %d, want 11", got)
	}
	if got := r.After("zzz"); got != int32(len(recs)) {
		t.Errorf("After the last = %d", got)
	}
}

// An alias that is another document's canonical id resolves to the
// document the builder gave it to, as aliases.parquet does.
func TestAliasShadowsID(t *testing.T) {
	recs := sample(3)
	r, _ := write(t, recs, [][2]string{{recs[2].ID, recs[0].ID}})
	if got := r.Lookup(recs[2].ID); got != 0 {
		t.Fatalf("Lookup = %d, want 0", got)
	}
	if got := r.Find(recs[2].ID); got != 2 {
		t.Fatalf("Find = %d, want 2", got)
	}
}

func TestEmpty(t *testing.T) {
	r, _ := write(t, nil, nil)
	if r.Len() != 0 || r.Lookup("x") != -1 || r.After("") != 0 {
		t.Fatal("empty catalog answers")
	}
}

func TestOrder(t *testing.T) {
	w, err := NewWriter(bufio.NewWriter(&discard{}), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Add(&Record{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(&Record{ID: "a"}); !errors.Is(err, ErrOrder) {
		t.Fatalf("unsorted record: %v", err)
	}
	if err := w.AddAlias("x", "b"); err != nil {
		t.Fatal(err)
	}
	if err := w.AddAlias("w", "b"); !errors.Is(err, ErrOrder) {
		t.Fatalf("unsorted alias: %v", err)
	}
	if err := w.Add(&Record{ID: "c"}); !errors.Is(err, ErrOrder) {
		t.Fatalf("record after aliases: %v", err)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// Damaged files are refused or give ErrCorrupt per record, never a crash.
func TestCorrupt(t *testing.T) {
	_, path := write(t, sample(50), [][2]string{{"pmc-1", "doi-10.1000/000001"}})
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i += 7 {
		for _, v := range []byte{0x00, 0xff, 0x80} {
			b := append([]byte(nil), good...)
			b[i] = v
			exercise(t, b)
		}
	}
	for _, n := range []int{0, 10, footerSize - 1, len(good) / 2} {
		exercise(t, good[:n])
	}
}

func exercise(t testing.TB, b []byte) {
	path := filepath.Join(t.TempDir(), "c.bin")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open: %v, want ErrCorrupt", err)
		}
		return
	}
	defer r.Close()
	for d := range r.Len() {
		if _, err := r.Record(int32(d)); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Record: %v", err)
		}
		r.ID(int32(d))
	}
	r.Lookup("pmc-1")
	r.After("doi-10.1000/000020")
}

func FuzzOpen(f *testing.F) {
	_, path := write(f, sample(5), [][2]string{{"pmc-1", "doi-10.1000/000001"}})
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Fuzz(func(t *testing.T, b []byte) { exercise(t, b) })
}
