package bundle

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestWriter cuts lines into frames after each cut and nowhere else, and
// the frames read back as the lines; a bundle without lines is one empty
// frame.
func TestWriter(t *testing.T) {
	var out, plain bytes.Buffer
	w := NewWriter(&out, "bundles/x.jsonl.zst")
	for i := range 500 {
		line := fmt.Appendf(nil, `{"id":"pmc-%07d","title":"document %d"}`+"\n", i, i)
		plain.Write(line)
		if err := w.Add(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	frames := w.Frames()
	if len(frames) < 500/Cut/2 || len(frames) > 2*500/Cut || w.Docs() != 500 || w.Size() != int64(out.Len()) {
		t.Fatalf("%d frames, %d lines, %d bytes of %d; want about %d frames", len(frames), w.Docs(), w.Size(), out.Len(), 500/Cut)
	}
	var lines int64
	for i, f := range frames {
		lines += f.Lines
		if i+1 < len(frames) && !IsCut(f.Last) {
			t.Errorf("frame %d ends with %s, not a cut", i, f.Last)
		}
		got, err := Decode(out.Bytes()[f.Offset:f.Offset+f.Bytes], nil)
		if err != nil || bytes.Count(got, []byte("\n")) != int(f.Lines) {
			t.Errorf("frame %d: %d lines (%v), want %d", i, bytes.Count(got, []byte("\n")), err, f.Lines)
		}
		for l := range bytes.Lines(got) {
			if id, _ := LineID(l); id != f.Last && IsCut(id) {
				t.Errorf("frame %d holds the cut %s before its end", i, id)
			}
		}
	}
	if got, err := Decode(out.Bytes(), nil); err != nil || !bytes.Equal(got, plain.Bytes()) || lines != 500 {
		t.Errorf("the frames read back as %d bytes (%v), %d lines; want the %d bytes of 500 lines", len(got), err, lines, plain.Len())
	}
	var empty bytes.Buffer
	e := NewWriter(&empty, "bundles/y.jsonl.zst")
	if err := e.Close(); err != nil || len(e.Frames()) != 0 || empty.Len() == 0 {
		t.Fatalf("an empty bundle: %d frames, %d bytes (%v); want one empty frame and no list entry", len(e.Frames()), empty.Len(), err)
	}
	if got, err := Decode(empty.Bytes(), nil); err != nil || len(got) != 0 {
		t.Errorf("the empty bundle reads as %q (%v)", got, err)
	}
	if err := NewWriter(&out, "x").Add([]byte(`{"title":"no id"}`)); err == nil {
		t.Error("a line without an id was written")
	}
}

// TestDirty marks the frames holding an added or removed id and the
// frame after one whose last line is removed.
func TestDirty(t *testing.T) {
	var cuts []string
	for i := 0; len(cuts) < 4; i++ {
		if id := fmt.Sprintf("pmc-%07d", i); IsCut(id) {
			cuts = append(cuts, id)
		}
	}
	frames := make([]Frame, len(cuts))
	for i, id := range cuts {
		frames[i] = Frame{Last: id, Bytes: 10, Lines: 3}
	}
	after := func(id string) string { return id + "a" } // between a cut and the next
	for _, tc := range []struct {
		name    string
		frames  []Frame
		added   []string
		removed []string
		want    []bool
	}{
		{"nothing", frames, nil, nil, []bool{false, false, false, false}},
		{"added in the second frame", frames, []string{after(cuts[0])}, nil, []bool{false, true, false, false}},
		{"added after the last cut", frames, []string{after(cuts[3])}, nil, []bool{false, false, false, true}},
		{"removed inside the first", frames, nil, []string{"pmc-"}, []bool{true, false, false, false}},
		{"removed a frame's last line", frames, nil, []string{cuts[1]}, []bool{false, true, true, false}},
		{"no frames", nil, []string{"pmc-1"}, nil, []bool{}},
	} {
		removed := map[string]bool{}
		for _, id := range tc.removed {
			removed[id] = true
		}
		if got := Dirty(tc.frames, tc.added, removed); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStale tells frames cut by IsCut from frames cut by another rule,
// decoding a bundle of one frame only.
func TestStale(t *testing.T) {
	var ids, cuts []string
	for i := 0; len(cuts) < 3; i++ {
		id := fmt.Sprintf("pmc-%07d", i)
		ids = append(ids, id)
		if IsCut(id) {
			cuts = append(cuts, id)
		}
	}
	// One frame of every line so far: cuts[0] and cuts[1] inside it.
	var plain bytes.Buffer
	for _, id := range ids {
		fmt.Fprintf(&plain, `{"id":"%s"}`+"\n", id)
	}
	enc := encoder.EncodeAll(plain.Bytes(), nil)
	one := Frame{Last: cuts[2], Bytes: int64(len(enc)), Lines: int64(len(ids))}
	single := Frame{Last: ids[0], Bytes: 5, Lines: 1}
	for _, tc := range []struct {
		name   string
		frames []Frame
		want   bool
	}{
		{"no frames", nil, false},
		{"cut by IsCut", []Frame{{Last: cuts[0]}, {Last: cuts[1]}, {Last: "pmc-9"}}, false},
		{"a frame ending with no cut", []Frame{{Last: cuts[0]}, {Last: ids[1]}, {Last: cuts[2]}}, true},
		{"one frame of one line", []Frame{single}, false},
		{"one frame holding cuts", []Frame{one}, true},
	} {
		got, err := Stale(tc.frames, func(f Frame) ([]byte, error) {
			if f != one {
				t.Errorf("%s: read %+v", tc.name, f)
			}
			return enc, nil
		})
		if err != nil || got != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}
