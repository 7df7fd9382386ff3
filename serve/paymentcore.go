package serve

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/x402"
)

// PaymentsConfig tunes the payment core. Zero fields take the defaults
// noted.
type PaymentsConfig struct {
	// Instance names this server among those sharing a ledger; it must be
	// stable across restarts and unique among replicas, so that a
	// restarted instance takes back at once what its previous run left.
	// Default: host name and listen address.
	Instance string
	// ClaimLease: how long a paid request holds its payment before it is
	// presumed crashed and recovered (never beyond the authorization's
	// validBefore). Default 2 min.
	ClaimLease time.Duration
	// Wait: how long a re-send waits for the request holding the same
	// payment before 409 payment_in_progress. Default 3 s.
	Wait time.Duration
	// RecoverEvery: how often abandoned payments are looked for. Default
	// 30 s (and once at start-up).
	RecoverEvery time.Duration
	// PruneEvery: how often the ledger is pruned. Default 1 h.
	PruneEvery time.Duration
	// Retention: how long finished records are kept after their
	// authorization expired. Default 30 days.
	Retention time.Duration
	// MaxAnswerBytes bounds a stored answer. Default 1 MiB.
	MaxAnswerBytes int
}

func (p *PaymentsConfig) validate(addr string) error {
	if p.Instance == "" {
		host, _ := os.Hostname()
		p.Instance = host + "-" + addr
	}
	if p.ClaimLease < 0 || p.Wait < 0 || p.RecoverEvery < 0 || p.PruneEvery < 0 || p.Retention < 0 || p.MaxAnswerBytes < 0 {
		return fmt.Errorf("serve: payment durations and sizes must not be negative")
	}
	if p.RecoverEvery == 0 {
		p.RecoverEvery = 30 * time.Second
	}
	if p.PruneEvery == 0 {
		p.PruneEvery = time.Hour
	}
	if p.Retention == 0 {
		p.Retention = 30 * 24 * time.Hour
	}
	return nil
}

// openPayments opens the ledger and builds the payment core.
func openPayments(ctx context.Context, cfg Config, metrics func(string)) (*x402.Core, *x402.Ledger, error) {
	if t := cfg.Fetch.Targets(); len(t) > 0 {
		cfg.Logger.Warn("UNSAFE for production: live tools, alarms and the browser may reach these non-public targets (--unsafe-allow-targets); for tests only",
			"prefixes", fetch.FormatPrefixes(t))
	}
	where := cfg.Ledger
	if where == "" {
		where = x402.LedgerPath(cfg.DataDir)
	}
	ledger, err := x402.OpenLedgerURL(ctx, where)
	if err != nil {
		return nil, nil, fmt.Errorf("serve: payment ledger: %w", err)
	}
	var fac x402.Facilitator = x402.NewLocal(ledger)
	if cfg.Facilitator != "local" {
		fac = &x402.HTTPFacilitator{BaseURL: cfg.Facilitator,
			Timeouts: x402.Timeouts{Verify: cfg.FacilitatorTimeout, Settle: cfg.FacilitatorTimeout, Supported: cfg.FacilitatorTimeout}}
	}
	core, err := x402.New(x402.Config{PayTo: cfg.PayTo, Facilitator: fac, Ledger: ledger,
		MaxTimeoutSeconds: cfg.MaxTimeoutSeconds, Now: cfg.Now, Logger: cfg.Logger, Metrics: metrics,
		Instance: cfg.Payments.Instance, ClaimLease: cfg.Payments.ClaimLease, Wait: cfg.Payments.Wait,
		MaxAnswerBytes: cfg.Payments.MaxAnswerBytes})
	if err != nil {
		ledger.Close()
		return nil, nil, err
	}
	cfg.Logger.Info("payments", "facilitator", facilitatorName(cfg.Facilitator), "pay_to", core.Config().PayTo,
		"network", core.Config().Network, "ledger", ledger.Where(), "instance", core.Config().Instance,
		"environment", environment(cfg.Facilitator, core.Config().Network))
	return core, ledger, nil
}

// startMaintenance recovers abandoned payments now and on a schedule and
// prunes the ledger; the returned func stops it (before the ledger
// closes).
func startMaintenance(ctx context.Context, core *x402.Core, p PaymentsConfig) func() error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { core.Maintain(ctx, p.RecoverEvery, p.PruneEvery, p.Retention) })
	return func() error {
		cancel()
		wg.Wait()
		return nil
	}
}

// environment is what the discovery documents call the deployment: only
// a real facilitator on Base mainnet is production.
func environment(facilitator, network string) string {
	switch {
	case facilitator == "local":
		return "local"
	case network == x402.NetworkBase:
		return "production"
	default:
		return "testnet"
	}
}

// facilitatorName is the facilitator as documents state it: its URL
// without credentials, query or fragment, or "local, no funds move".
func facilitatorName(f string) string {
	if f == "local" {
		return "local, no funds move"
	}
	u, err := url.Parse(f)
	if err != nil {
		return "(unparseable)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// ledgerCollector exports the number of payments in each ledger state as
// openshelf_payment_records{state=...}, read at scrape time.
type ledgerCollector struct {
	ledger *x402.Ledger
	desc   *prometheus.Desc
}

func newLedgerCollector(l *x402.Ledger) prometheus.Collector {
	return &ledgerCollector{ledger: l, desc: prometheus.NewDesc("openshelf_payment_records",
		"Payment ledger records by state (claimed, settling, settled, served, released, failed).", []string{"state"}, nil)}
}

func (c *ledgerCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *ledgerCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.ledger.CountStates(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for _, s := range x402.States {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[s]), s)
	}
}
