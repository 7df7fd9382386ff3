package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openshelf/openshelf/serve/x402"
)

func init() {
	register(command{name: "payments", summary: "list payments by state and report settled-but-not-served ones (reconciliation)", run: runPayments})
}

// attention are the states an operator may have to act on: settlement
// sent or confirmed, answer not yet handed out.
var attention = []string{x402.StateClaimed, x402.StateSettling, x402.StateSettled}

func runPayments(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("payments", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		dataDir, ledger, states string
		limit                   int
		asJSON                  bool
	)
	fs.StringVar(&dataDir, "data", "data", "data directory (its ledger is DATA/state/x402.db)")
	fs.StringVar(&ledger, "ledger", "", "ledger: a SQLite path or a postgres:// URL (default the one under -data)")
	fs.StringVar(&states, "state", strings.Join(attention, ","), `states to list, comma-separated, or "all"`)
	fs.IntVar(&limit, "limit", 100, "list at most this many records (0: all)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	fs.Usage = flagUsage(fs, e.stderr, "openshelf payments [flags]")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := applyEnv(fs, e.getenv); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "openshelf payments: bad arguments", err, fs.Args())
		return exitUsage
	}
	var want []string
	if states != "all" {
		for _, s := range strings.Split(states, ",") {
			s = strings.TrimSpace(s)
			if !contains(x402.States, s) {
				fmt.Fprintf(e.stderr, "openshelf payments: unknown state %q (states: %s)\n", s, strings.Join(x402.States, ", "))
				return exitUsage
			}
			want = append(want, s)
		}
	}
	if ledger == "" {
		ledger = x402.LedgerPath(dataDir)
	}
	if !x402.IsPostgresURL(ledger) {
		// A report must not create an empty ledger where none was.
		if _, err := os.Stat(ledger); err != nil {
			fmt.Fprintln(e.stderr, "openshelf payments: no ledger:", err)
			return exitFailure
		}
	}
	l, err := x402.OpenLedgerURL(ctx, ledger)
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf payments:", err)
		return exitFailure
	}
	defer l.Close()
	counts, err := l.CountStates(ctx)
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf payments:", err)
		return exitFailure
	}
	settled, unknown, err := l.CountSettlements(ctx)
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf payments:", err)
		return exitFailure
	}
	recs, err := l.Records(ctx, limit, want...)
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf payments:", err)
		return exitFailure
	}
	notServed := counts[x402.StateSettling] + counts[x402.StateSettled]
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"ledger": l.Where(), "states": counts, "settlement_log": map[string]int{"settled": settled, "unknown": unknown},
			"settled_not_served": notServed, "records": recs})
		return exitOK
	}
	fmt.Fprintf(e.stdout, "ledger %s\n\n", l.Where())
	for _, s := range x402.States {
		fmt.Fprintf(e.stdout, "%-9s %d\n", s, counts[s])
	}
	fmt.Fprintf(e.stdout, "\nsettlement log: %d settled, %d with unknown outcome\n", settled, unknown)
	fmt.Fprintf(e.stdout, "settled (or settlement sent) but not served: %d\n", notServed)
	if len(recs) == 0 {
		return exitOK
	}
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tUPDATED\tLEASE\tVALID_BEFORE\tPAYER\tNONCE\tAMOUNT\tTX\tRESOURCE")
	for _, r := range recs {
		lease := "-"
		if r.State == x402.StateClaimed || r.State == x402.StateSettling {
			lease = r.Lease.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.State, r.Updated.Format(time.RFC3339), lease,
			r.ValidBefore.Format(time.RFC3339), r.Payer, r.Nonce, r.Amount, cmpOr(r.Transaction, "-"), r.Resource)
	}
	tw.Flush()
	return exitOK
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
