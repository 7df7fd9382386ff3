package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/openshelf/openshelf/index/resident"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/fetch"
)

func init() {
	register(command{name: "serve", summary: "serve the current snapshot, the paid endpoints, the live tools and /mcp", run: runServe})
}

// prefixList is a repeatable flag of CIDR prefixes (or bare addresses).
type prefixList []netip.Prefix

func (p *prefixList) String() string {
	var s []string
	for _, x := range *p {
		s = append(s, x.String())
	}
	return strings.Join(s, ",")
}

func (p *prefixList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return err
			}
			*p = append(*p, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pr, err := netip.ParsePrefix(part)
		if err != nil {
			return err
		}
		*p = append(*p, pr.Masked())
	}
	return nil
}

// targetList is the repeatable -unsafe-allow-targets flag.
type targetList struct{ p *[]netip.Prefix }

func (l targetList) String() string {
	if l.p == nil {
		return ""
	}
	return fetch.FormatPrefixes(*l.p)
}

func (l targetList) Set(v string) error {
	ps, err := fetch.ParsePrefixes(v)
	if err != nil {
		return err
	}
	*l.p = append(*l.p, ps...)
	return nil
}

func runServe(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var cfg serve.Config
	var trusted prefixList
	var logLevel string
	fs.StringVar(&cfg.DataDir, "data", "data", "data directory holding current/ and snapshots/")
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address host:port")
	metricsAddr := "127.0.0.1:9464"
	fs.StringVar(&metricsAddr, "metrics-addr", metricsAddr, "operator listener serving Prometheus /metrics, not the public one (\"\" disables)")
	fs.StringVar(&cfg.BaseURL, "base-url", "", "public base URL (default http://ADDR); https behind a TLS proxy")
	fs.StringVar(&cfg.PayTo, "pay-to", "", "EVM address receiving payments (required unless -facilitator local; local defaults to a placeholder)")
	fs.StringVar(&cfg.Facilitator, "facilitator", "local", `"local" (embedded, moves no funds) or an x402 facilitator URL`)
	fs.DurationVar(&cfg.FacilitatorTimeout, "facilitator-timeout", 15*time.Second, "timeout of each facilitator call")
	fs.IntVar(&cfg.MaxTimeoutSeconds, "max-timeout-seconds", 300, "maxTimeoutSeconds offered in payment requirements")
	fs.Float64Var(&cfg.RateLimit.PerSecond, "rate", 20, "requests per second per client IP (0 disables)")
	fs.IntVar(&cfg.RateLimit.Burst, "burst", 40, "burst size of the per-client token bucket")
	fs.Var(&trusted, "trusted-proxy", "proxy address or CIDR whose X-Forwarded-For is believed (repeatable, comma-separated)")
	fs.DurationVar(&cfg.WatchInterval, "watch", 2*time.Second, "how often to check DATA/current for a new snapshot (0: only on SIGHUP)")
	searchCache := byteSize(resident.DefaultBudget)
	fs.Var(&searchCache, "search-cache", "bound on the pages of the mapped search index and catalog resident in this process, a `size` such as 512MiB or 2GiB (0 or off: none); the least recently used are dropped first, and stay in the kernel's page cache")
	searchSets := byteSize(search.DefaultSets)
	fs.Var(&searchSets, "search-sets", "budget of the bitsets of frequent search terms, prefixes and phrases kept to count conjunctions, prefixes and phrases, a `size` such as 128MiB (0 or off: none); each takes documents/8 bytes")
	fs.BoolVar(&cfg.AccessLog, "access-log", false, "log every request")
	fs.StringVar(&cfg.Ledger, "ledger", "", "payment ledger: empty for SQLite at DATA/state/x402.db, or a postgres:// URL shared by several instances")
	fs.StringVar(&cfg.Payments.Instance, "instance", "", "name of this instance among those sharing the ledger, stable across restarts (default HOSTNAME-ADDR)")
	fs.DurationVar(&cfg.Payments.ClaimLease, "claim-lease", 2*time.Minute, "how long a paid request holds its payment before it is presumed crashed and recovered")
	fs.DurationVar(&cfg.Payments.Wait, "payment-wait", 3*time.Second, "how long a re-sent payment waits for the request holding it before 409 payment_in_progress")
	fs.DurationVar(&cfg.Payments.RecoverEvery, "recover-every", 30*time.Second, "how often abandoned payments are recovered")
	fs.DurationVar(&cfg.Payments.Retention, "ledger-retention", 30*24*time.Hour, "how long finished payment records are kept after their authorization expired")
	fs.Var(targetList{&cfg.Fetch.AllowTargets}, "unsafe-allow-targets", "UNSAFE, tests only: comma-separated CIDR prefixes (127.0.0.0/8,::1/128,10.9.0.0/16) that live tools, alarms and the browser may reach on any port although not public (repeatable)")
	fs.BoolVar(&cfg.Fetch.AllowLoopback, "unsafe-allow-loopback-targets", false, "UNSAFE, tests only: shorthand for -unsafe-allow-targets 127.0.0.0/8,::1/128")
	fs.StringVar(&cfg.AlarmDB, "alarm-db", "", "alarm store: empty for SQLite at DATA/state/alarms.db, or a postgres:// URL shared by several instances")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&cfg.Datasets, "datasets", "datasets", "directory of the offline place and reference data (npm packages installed by scripts/setup.sh)")
	cfg.Families = serve.Families()
	for _, f := range cfg.Families {
		f.RegisterFlags(fs)
	}
	fs.Usage = flagUsage(fs, e.stderr, "openshelf serve [flags]")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := applyEnv(fs, e.getenv); err != nil {
		fmt.Fprintln(e.stderr, "openshelf serve:", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "openshelf serve: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if e.getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit + max(int64(searchSets), 0))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		fmt.Fprintf(e.stderr, "openshelf serve: -log-level: %v\n", err)
		return exitUsage
	}
	cfg.RateLimit.TrustedProxies = trusted
	cfg.SearchSets = int64(searchSets)
	if searchSets == 0 {
		cfg.SearchSets = -1 // off, not the default
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	cfg.Logger = log
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(e.stderr, "openshelf serve:", err)
		return exitUsage
	}

	app, err := serve.NewApp(ctx, cfg)
	if err != nil {
		log.Error("cannot start", "err", err)
		return exitFailure
	}
	defer app.Close()
	// The search index and the catalog are mapped; their touched pages
	// count in this process's RSS until dropped (package index/resident).
	res := &resident.Residency{Budget: int64(searchCache), Logger: log}
	go res.Run(ctx)

	// SIGHUP reloads the snapshot; the watcher does the same on its own.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := app.Store.Reload(ctx); err != nil {
					log.Error("reload on SIGHUP failed; still serving the previous snapshot", "err", err)
				}
			}
		}
	}()
	if cfg.WatchInterval > 0 {
		go app.Store.Watch(ctx, cfg.WatchInterval)
	}
	if metricsAddr != "" {
		// Metrics are for the operator: their own listener, by default
		// on loopback, never on the public router.
		go func() {
			err := serve.Run(ctx, metricsAddr, app.HTTP.Metrics(), 5*time.Second, log, func(a net.Addr) {
				log.Info("metrics listening", "addr", a.String())
			})
			if err != nil {
				log.Error("metrics listener failed", "err", err)
			}
		}()
	}
	err = serve.Run(ctx, cfg.Addr, app.HTTP, 30*time.Second, log, func(a net.Addr) {
		log.Info("listening", "addr", a.String(), "base_url", cfg.BaseURL, "facilitator", cfg.Facilitator)
	})
	if err != nil {
		log.Error("server failed", "err", err)
		return exitFailure
	}
	return exitOK
}

// serveGCPercent is the server's GOGC unless the environment sets one.
// Its live heap is small (tens of MiB: the search index and catalog are
// mapped files), so at the default of 100 it collects several times a
// second under load, and cheap searches that meet a collection wait for
// it. At 10M documents the rare-word p99 was 5.3–10.4 ms at 100 and
// 5.4–5.6 at 400 (openshelf bench; the residency bound's drops weigh more).
// 400 lets the heap grow to five times what is live, far below the
// server's memory budget.
const serveGCPercent = 400

// serveMemoryLimit, plus the budget of the search sets, is the server's
// soft memory limit (GOMEMLIMIT) unless the environment sets one. The
// sets are live heap, and GOGC 400 alone would let the heap grow to five
// times them: at 10M documents, 715 MiB anonymous with 128 MiB of sets
// (openshelf bench). The limit collects sooner, and leaves about as much
// room for garbage as GOGC 400 did without sets.
const serveMemoryLimit = 256 << 20
