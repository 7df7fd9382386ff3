package x402

import (
	"context"
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
