// Command openshelf runs the open-licence scholarly archive: `ingest` builds
// a snapshot from source files, `serve` (and others) are added by their own
// files in this package.
//
// Usage:
//
//	openshelf <command> [flags] [args]
//	openshelf help [command]
//
// Every flag has an OPENSHELF_* environment fallback (flag > environment >
// default), listed by `openshelf <command> -h`.
//
// Exit codes: 0 success; 1 failure (e.g. the data directory cannot be
// written); 2 usage or configuration error; 3 the request needs something
// not implemented yet (remote pipeline sources).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// Exit codes.
const (
	exitOK             = 0
	exitFailure        = 1
	exitUsage          = 2
	exitNotImplemented = 3
)

// command is one subcommand. Each lives in its own file (ingest.go,
// serve.go, bench.go...) and adds itself to the table with register from
// an init function, so main.go does not change when commands are added.
type command struct {
	name    string
	summary string // one line for `openshelf help`
	// run parses args with its own flag.FlagSet and returns the exit code.
	run func(ctx context.Context, env *env, args []string) int
}

// commands is the dispatch table, filled by register during init.
var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("openshelf: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// env is the process environment a command sees; tests substitute it.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// stderrTTY says whether stderr is a terminal (progress bars).
	stderrTTY bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, stderrTTY: isTerminal(os.Stderr)}, os.Args[1:])
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if c, ok := commands[rest[0]]; ok {
				return c.run(ctx, e, []string{"-h"})
			}
			fmt.Fprintf(e.stderr, "openshelf: unknown command %q\n", rest[0])
			return exitUsage
		}
		usage(e.stdout)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "openshelf: unknown command %q\n\n", name)
		usage(e.stderr)
		return exitUsage
	}
	return c.run(ctx, e, rest)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: openshelf <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'openshelf <command> -h' for the flags of a command.")
}
