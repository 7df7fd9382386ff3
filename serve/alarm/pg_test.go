package alarm

import (
	"context"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/pgtest"
)

// postgresDSN returns the URL of a fresh, empty database on the shared
// test cluster (internal/pgtest), started on first use.
func postgresDSN(t testing.TB) string { return pgtest.NewDatabase(t) }

func openPostgres(t testing.TB) (Store, string) {
	t.Helper()
	dsn := postgresDSN(t)
	st, err := OpenPostgres(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dsn
}

func TestPostgresDSNRecognised(t *testing.T) {
	for _, s := range []string{"postgres://u@h/db", "postgresql://h/db?sslmode=disable"} {
		if !IsPostgres(s) {
			t.Errorf("%s not recognised", s)
		}
	}
	for _, s := range []string{"", "/var/lib/alarms.db", "sqlite:/x.db", "postgres:/x"} {
		if IsPostgres(s) {
			t.Errorf("%s taken for PostgreSQL", s)
		}
	}
	if !strings.HasSuffix(DefaultPath("/data"), "/data/state/alarms.db") {
		t.Error(DefaultPath("/data"))
	}
}
