package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// envName is the environment fallback of a flag: -log-level ->
// OPENSHELF_LOG_LEVEL.
func envName(flagName string) string {
	return "OPENSHELF_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// applyEnv sets every flag not given on the command line from its
// OPENSHELF_* variable, through the flag's own parser, so a bad value in
// the environment is reported like a bad flag.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || set[f.Name] {
			return
		}
		name := envName(f.Name)
		if v := getenv(name); v != "" {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("environment %s=%q: %v", name, v, serr)
			}
		}
	})
	return err
}

// flagUsage prints a command's synopsis and its flags with their
// environment variables.
func flagUsage(fs *flag.FlagSet, w io.Writer, synopsis string) func() {
	return func() {
		fmt.Fprintf(w, "usage: %s\n\nflags (environment fallback in brackets):\n", synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			arg, help := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "  -%s", f.Name)
			if arg != "" {
				fmt.Fprintf(w, " %s", arg)
			}
			fmt.Fprintf(w, "  [%s]\n    \t%s", envName(f.Name), strings.ReplaceAll(help, "\n", "\n    \t"))
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				fmt.Fprintf(w, " (default %q)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// byteSize is a flag of a number of bytes: 512MiB, 2GiB, 100MB, 4096, or
// 0 / off.
type byteSize int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

func (s *byteSize) String() string {
	n := int64(*s)
	switch {
	case n == 0:
		return "0"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprint(n)
}

func (s *byteSize) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "off" {
		*s = 0
		return nil
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if len(v) > len(u.suffix) && strings.EqualFold(v[len(v)-len(u.suffix):], u.suffix) {
			v, mult = strings.TrimSpace(v[:len(v)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("not a size (e.g. 512MiB, 2GiB, 0): %q", v)
	}
	*s = byteSize(n * mult)
	return nil
}
