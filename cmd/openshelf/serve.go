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
	"strings"
	"syscall"
	"time"

	"github.com/openshelf/openshelf/serve"
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

func runServe(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var cfg serve.Config
	var trusted prefixList
	var logLevel string
	fs.StringVar(&cfg.DataDir, "data", "data", "data directory holding current/ and snapshots/")
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address host:port")
	fs.StringVar(&cfg.BaseURL, "base-url", "", "public base URL (default http://ADDR); https behind a TLS proxy")
	fs.StringVar(&cfg.PayTo, "pay-to", serve.DefaultPayTo, "EVM address receiving payments")
	fs.StringVar(&cfg.Facilitator, "facilitator", "local", `"local" (embedded, moves no funds) or an x402 facilitator URL`)
	fs.DurationVar(&cfg.FacilitatorTimeout, "facilitator-timeout", 15*time.Second, "timeout of each facilitator call")
	fs.IntVar(&cfg.MaxTimeoutSeconds, "max-timeout-seconds", 300, "maxTimeoutSeconds offered in payment requirements")
	fs.Float64Var(&cfg.RateLimit.PerSecond, "rate", 20, "requests per second per client IP (0 disables)")
	fs.IntVar(&cfg.RateLimit.Burst, "burst", 40, "burst size of the per-client token bucket")
	fs.Var(&trusted, "trusted-proxy", "proxy address or CIDR whose X-Forwarded-For is believed (repeatable, comma-separated)")
	fs.DurationVar(&cfg.WatchInterval, "watch", 2*time.Second, "how often to check DATA/current for a new snapshot (0: only on SIGHUP)")
	fs.BoolVar(&cfg.AccessLog, "access-log", false, "log every request")
	fs.StringVar(&cfg.AlarmDB, "alarm-db", "", "alarm store: empty for SQLite at DATA/state/alarms.db, or a postgres:// URL shared by several instances")
	fs.StringVar(&cfg.Browser.ChromiumPath, "chromium", "chromium", "Chromium binary for screenshot, site_speed, site_audit and PDF rendering")
	fs.IntVar(&cfg.Browser.Concurrency, "browser-concurrency", 2, "pages open in the browser at once (about one per core)")
	fs.DurationVar(&cfg.Browser.CallTimeout, "browser-timeout", 45*time.Second, "deadline of one browser tool call")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
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
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		fmt.Fprintf(e.stderr, "openshelf serve: -log-level: %v\n", err)
		return exitUsage
	}
	cfg.RateLimit.TrustedProxies = trusted
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
	err = serve.Run(ctx, cfg.Addr, app.HTTP, 30*time.Second, log, func(a net.Addr) {
		log.Info("listening", "addr", a.String(), "base_url", cfg.BaseURL, "facilitator", cfg.Facilitator)
	})
	if err != nil {
		log.Error("server failed", "err", err)
		return exitFailure
	}
	return exitOK
}
