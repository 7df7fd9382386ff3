package x402

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenLedgerPathWithURLCharacters(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a b%20c?d#e", "x402.db")
	l, err := OpenLedger(p)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("ledger not at %s: %v", p, err)
	}
}

func TestOpenLedgerRefusesNewerSchema(t *testing.T) {
	p := LedgerPath(t.TempDir())
	l, err := OpenLedger(p)
	if err != nil {
		t.Fatal(err)
	}
	err = l.do(func(ctx context.Context, w *writer) error {
		_, err := w.execSQL(ctx, "UPDATE ledger_meta SET v = '99' WHERE k = 'schema'")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := OpenLedger(p); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("err = %v", err)
	}
}

// A SQLite ledger written before payments was a rowid table (its WITHOUT
// ROWID layout, with the settlements index) is rebuilt when opened, and
// what it recorded is served as before.
func TestOpenLedgerRebuildsWithoutRowidPayments(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	run := func(context.Context, Payment) (string, error) { return "the answer", nil }
	_, r1, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{})
	if err != nil {
		t.Fatal(err)
	}
	e.ledger.Close()

	// Turn the file into the old layout.
	db, err := sql.Open("sqlite", e.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE old_payments (
			network TEXT NOT NULL, asset TEXT NOT NULL, payer TEXT NOT NULL, nonce TEXT NOT NULL,
			resource TEXT NOT NULL, state TEXT NOT NULL, owner TEXT NOT NULL, amount TEXT NOT NULL,
			valid_before BIGINT NOT NULL, lease_ms BIGINT NOT NULL, payment TEXT NOT NULL, receipt TEXT,
			created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL, settle_ms BIGINT, settled_ms BIGINT, served_ms BIGINT,
			PRIMARY KEY (network, asset, payer, nonce)) WITHOUT ROWID`,
		`INSERT INTO old_payments SELECT ` + paymentColumns + ` FROM payments`,
		`DROP TABLE payments`,
		`ALTER TABLE old_payments RENAME TO payments`,
		`CREATE INDEX payments_inflight ON payments (lease_ms) WHERE state IN ('claimed', 'settling')`,
		`CREATE INDEX settlements_payer ON settlements (payer, nonce)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	layout := func() (ddl string, indexes []string) {
		t.Helper()
		if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'payments'`).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			indexes = append(indexes, n)
		}
		return ddl, indexes
	}
	if ddl, _ := layout(); !strings.Contains(ddl, "WITHOUT ROWID") {
		t.Fatalf("old layout not made: %s", ddl)
	}
	db.Close()

	e2 := newEnvAt(t, e.path)
	v, r2, err := Pay(context.Background(), e2.core, e2.req, p, run, memCodec{})
	if err != nil || v != "the answer" || r2.Transaction != r1.Transaction {
		t.Fatalf("re-send after the rebuild: %q %+v %v", v, r2, err)
	}
	if e2.outcome(OutcomeReplayed) != 1 || e2.settledCount() != 1 {
		t.Fatalf("replayed %d, settlements %d; want 1 and 1", e2.outcome(OutcomeReplayed), e2.settledCount())
	}
	// A fresh payment still claims, settles and is served.
	if _, _, err := Pay(context.Background(), e2.core, e2.req, e2.payment(), run, memCodec{}); err != nil {
		t.Fatal(err)
	}
	e2.ledger.Close()
	db, err = sql.Open("sqlite", e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ddl, indexes := layout()
	if strings.Contains(ddl, "WITHOUT ROWID") || fmt.Sprint(indexes) != "[payments_inflight]" {
		t.Fatalf("after opening: %s, indexes %v; want a rowid table and [payments_inflight]", ddl, indexes)
	}
}
