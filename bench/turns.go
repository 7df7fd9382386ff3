package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Turn is what giving one system the page cache cost: the bytes of its
// own files read in, and how long that took.
type Turn struct {
	System string
	Read   int64
	Took   time.Duration
	// Skipped counts files (or directories) that could not be opened,
	// read or dropped; the turn is then only partly the system's.
	Skipped int
}

// giveTurn prepares the page cache for s's measurements as if s ran alone
// on the machine: the clean cached pages of every other system's files
// are dropped (POSIX_FADV_DONTNEED; pages a process still maps stay), and
// s's own files are read once from start to end (until ctx is done).
//
// At 10M documents the three systems' files (PostgreSQL's cluster, our
// index and catalog, Lucene's index) are larger than the memory of the
// machine the numbers come from, so without turns whichever system ran
// last (or PostgreSQL's long comparison queries) decides what the next
// one finds cached, and the numbers measure eviction order rather than
// the engines.
func giveTurn(ctx context.Context, s system, all []system) Turn {
	t := Turn{System: s.name}
	start := time.Now()
	for _, o := range all {
		if o.name == s.name {
			continue
		}
		walkFiles(o.files, func(f *os.File) error {
			return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		}, &t.Skipped)
	}
	buf := make([]byte, 1<<20)
	walkFiles(s.files, func(f *os.File) error {
		for ctx.Err() == nil {
			n, err := f.Read(buf)
			t.Read += int64(n)
			if err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
		}
		return ctx.Err()
	}, &t.Skipped)
	t.Took = time.Since(start)
	return t
}

// walkFiles opens every regular file under the given paths (files or
// directories) and calls fn on it, counting the files it could not open
// or fn failed on.
func walkFiles(paths []string, fn func(*os.File) error, failed *int) {
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d == nil || d.IsDir() {
					return err
				}
				*failed++
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				*failed++
				return nil
			}
			defer f.Close()
			if fn(f) != nil {
				*failed++
			}
			return nil
		})
		if err != nil {
			*failed++
		}
	}
}

// turnsMarkdown writes one line on the page-cache turns of a run.
func turnsMarkdown(w io.Writer, turns []Turn) {
	if len(turns) == 0 {
		return
	}
	parts := make([]string, len(turns))
	for i, t := range turns {
		parts[i] = fmt.Sprintf("%s %s in %s", t.System, mib(t.Read), t.Took.Round(100*time.Millisecond))
		if t.Skipped > 0 {
			parts[i] += fmt.Sprintf(" (%d files could not be read or dropped)", t.Skipped)
		}
	}
	fmt.Fprintf(w, "- Page cache: before its measurements each system's files were read once and the others' dropped from the cache (-turns): %s.",
		strings.Join(parts, "; "))
	fmt.Fprintln(w)
}
