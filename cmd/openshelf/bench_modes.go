package main

import "context"

// benchMode is a sub-mode of `openshelf bench`: `openshelf bench NAME
// [flags]`. Each lives in its own bench_NAME.go file and adds itself with
// registerBenchMode from an init function; `openshelf bench` without a
// mode name runs the read-server benchmark (bench.go).
type benchMode struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

var benchModes = map[string]benchMode{}

func registerBenchMode(m benchMode) {
	if _, dup := benchModes[m.name]; dup {
		panic("openshelf: bench mode registered twice: " + m.name)
	}
	benchModes[m.name] = m
}

// runBenchMode runs the mode named by args[0], if there is one; ok is
// false when args does not start with a mode name (flags, or nothing).
func runBenchMode(ctx context.Context, e *env, args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	m, ok := benchModes[args[0]]
	if !ok {
		return 0, false
	}
	return m.run(ctx, e, args[1:]), true
}
