package bundle

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/snapshot"
)

// TestOpen reads a bundle kept as frames in two packs, in the
// listed order, and a bundle file.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bundles/genetics/a.zst", "xxAAAyyCC")
	write("bundles/genetics/b.zst", "BB")
	frames := []Frame{
		{Last: "pmc-1", Bytes: 2, Lines: 1, Pack: "bundles/genetics/a.zst", Offset: 2},
		{Last: "pmc-2", Bytes: 1, Lines: 1, Pack: "bundles/genetics/a.zst", Offset: 4},
		{Last: "pmc-3", Bytes: 2, Lines: 2, Pack: "bundles/genetics/b.zst"},
		{Last: "pmc-4", Bytes: 2, Lines: 1, Pack: "bundles/genetics/a.zst", Offset: 7},
	}
	list := AppendFrames(nil, "bundles/genetics.jsonl.zst", frames)
	// A frame that follows the previous one in its pack takes three fields.
	if want := "pmc-1\t2\t1\tbundles/genetics/a.zst\t2\npmc-2\t1\t1\npmc-3\t2\t2\tbundles/genetics/b.zst\t0\n" +
		"pmc-4\t2\t1\tbundles/genetics/a.zst\t7\n"; string(list) != want {
		t.Errorf("frames list %q, want %q", list, want)
	}
	if got, err := ParseFrames(list, "bundles/genetics.jsonl.zst"); err != nil || !slices.Equal(got, frames) {
		t.Errorf("parsed back: %+v (%v), want %+v", got, err, frames)
	}
	write("bundles/genetics.frames", string(list))
	write("bundles/ecology.jsonl.zst", "whole")
	s := &snapshot.Snapshot{Dir: dir}
	for slug, want := range map[string]string{"genetics": "AAABBCC", "ecology": "whole"} {
		r, err := Open(s, slug)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := r.(interface{ Stat() (os.FileInfo, error) }).Stat()
		if err != nil || fi.Size() != int64(len(want)) {
			t.Errorf("%s: Stat %v (%v), want %d bytes", slug, fi, err, len(want))
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != want {
			t.Errorf("%s: %q (%v), want %q", slug, got, err, want)
		}
	}
}

// TestParseFrames reads both forms of a frames list and rejects
// malformed lines and packs outside the bundles.
func TestParseFrames(t *testing.T) {
	got, err := ParseFrames([]byte("pmc-1\t10\t3\npmc-9\t5\t2\n"), "bundles/x.jsonl.zst")
	want := []Frame{{"pmc-1", 10, 3, "bundles/x.jsonl.zst", 0}, {"pmc-9", 5, 2, "bundles/x.jsonl.zst", 10}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("three fields: %+v (%v), want %+v", got, err, want)
	}
	if got := AppendFrames(nil, "bundles/x.jsonl.zst", want); string(got) != "pmc-1\t10\t3\npmc-9\t5\t2\n" {
		t.Errorf("a bundle file's frames list: %q", got)
	}
	for _, bad := range []string{
		"pmc-1\t10\n",
		"pmc-1\t0\t3\n",
		"pmc-1\t10\tx\n",
		"pmc-1\t10\t3\tbundles/x/a.zst\t-1\n",
		"pmc-1\t10\t3\t../a.zst\t0\n",
		"pmc-1\t10\t3\tbundles/../../a.zst\t0\n",
		"pmc-1\t10\t3\t/etc/passwd\t0\n",
		"pmc-1\t10\t3\tbundles//a.zst\t0\n",
	} {
		if _, err := ParseFrames([]byte(bad), "bundles/x.jsonl.zst"); !errors.Is(err, ErrFrames) {
			t.Errorf("%q: %v, want ErrFrames", bad, err)
		}
	}
}

// FuzzParseFrames checks that any frames list either is rejected or
// survives a round trip through AppendFrames unchanged.
func FuzzParseFrames(f *testing.F) {
	f.Add([]byte("pmc-1\t10\t3\npmc-9\t5\t2\n"))
	f.Add([]byte("pmc-1\t10\t3\tbundles/x/a.zst\t7\npmc-2\t4\t1\npmc-3\t2\t1\tbundles/x.jsonl.zst\t0\n"))
	f.Add([]byte("pmc-1\t10\t3\tbundles/../a.zst\t0\n"))
	const name = "bundles/x.jsonl.zst"
	f.Fuzz(func(t *testing.T, data []byte) {
		frames, err := ParseFrames(data, name)
		if err != nil {
			if !errors.Is(err, ErrFrames) {
				t.Fatalf("error %v is not ErrFrames", err)
			}
			return
		}
		for _, fr := range frames {
			if fr.Pack != name && !validPack(fr.Pack) {
				t.Fatalf("frame in %q outside the bundles", fr.Pack)
			}
		}
		again, err := ParseFrames(AppendFrames(nil, name, frames), name)
		if err != nil || !slices.Equal(again, frames) {
			t.Fatalf("round trip: %+v (%v), want %+v", again, err, frames)
		}
	})
}
