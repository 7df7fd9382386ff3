package main

import (
	"flag"
	"fmt"
	"io"
	"os"
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
