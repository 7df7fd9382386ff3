// Command testreport reads `go test -json` events on standard input and
// prints what a person needs from a CI run: each package's result line, the
// output of every failed test, the name and reason of every skipped test,
// and a closing "N passed, N failed, N skipped" line. It exits non-zero when
// anything failed, including a build.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

func report(r io.Reader, w io.Writer) (failed bool, err error) {
	out := map[key]*strings.Builder{}
	var passed, nfailed int
	var skipped []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			// Not an event: the go command's own message (a build
			// failure, say). Show it as is.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			b := out[k]
			if b == nil {
				b = &strings.Builder{}
				out[k] = b
			}
			b.WriteString(e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				failed = failed || e.Action == "fail"
				printPackage(w, e, out[k])
				delete(out, k)
				continue
			}
			switch e.Action {
			case "pass":
				passed++
			case "fail":
				nfailed++
				failed = true
				fmt.Fprintf(w, "--- FAIL: %s %s\n%s", e.Package, e.Test, text(out[k]))
			case "skip":
				skipped = append(skipped, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(out[k])))
			}
			delete(out, k)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	sort.Strings(skipped)
	for _, s := range skipped {
		fmt.Fprintln(w, "--- SKIP:", s)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", passed, nfailed, len(skipped))
	return failed, nil
}

// printPackage prints the package's result line as go test does, and its
// output when it failed (a build error, a panic outside a test, a timeout).
func printPackage(w io.Writer, e event, b *strings.Builder) {
	switch e.Action {
	case "pass":
		fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
	case "fail":
		fmt.Fprint(w, text(b))
		fmt.Fprintf(w, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
	}
}

func text(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return b.String()
}

// skipReason is the message t.Skip printed, without the "--- SKIP" line.
func skipReason(b *strings.Builder) string {
	var lines []string
	for _, l := range strings.Split(text(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, " ")
}
