package alarm

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A throw-away PostgreSQL cluster for the tests of this package: Debian's
// postgresql binaries (scripts/setup.sh installs them), initdb on a temp
// directory, a random loopback port, trust authentication. PostgreSQL
// refuses to run as root, so as root the cluster runs as the postgres user
// through runuser. Without the binaries the tests fail: setup installs them.

var pg struct {
	once    sync.Once
	dir     string
	bin     string
	as      []string // command prefix to run as the cluster's owner
	base    string   // DSN without the database name
	err     error
	missing string
	n       atomic.Int64
}

func pgBinDir() string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	// The highest version: the glob sorts lexically, good enough for 1x.
	return filepath.Dir(matches[len(matches)-1])
}

func startPostgresOnce() {
	bin := pgBinDir()
	if bin == "" {
		pg.missing = "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql, or set PG_BIN)"
		return
	}
	pg.bin = bin
	dir, err := os.MkdirTemp("", "alarm-pg-")
	if err != nil {
		pg.err = err
		return
	}
	pg.dir = dir
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			pg.err = fmt.Errorf("running as root and there is no postgres user to run the cluster: %v", err)
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			pg.err = err
			return
		}
		pg.as = []string{"runuser", "-u", "postgres", "--"}
	}
	data := filepath.Join(dir, "data")
	if out, err := pgRun(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"); err != nil {
		pg.err = fmt.Errorf("initdb: %v\n%s", err, out)
		return
	}
	port, err := freePort()
	if err != nil {
		pg.err = err
		return
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", port, dir)
	if out, err := pgRun(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		pg.err = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
		return
	}
	pg.base = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/", port)
}

func pgRun(name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, pg.as...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = pg.dir
	return cmd.CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// stopPostgres stops the cluster, if one was started; from TestMain.
func stopPostgres() {
	if pg.base != "" {
		pgRun(filepath.Join(pg.bin, "pg_ctl"), "-D", filepath.Join(pg.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	if pg.dir != "" {
		os.RemoveAll(pg.dir)
	}
}

// postgresDSN returns the URL of a fresh, empty database on the test
// cluster, starting the cluster on first use.
func postgresDSN(t testing.TB) string {
	t.Helper()
	pg.once.Do(startPostgresOnce)
	if pg.missing != "" {
		t.Fatalf("%s; run scripts/setup.sh", pg.missing)
	}
	if pg.err != nil {
		t.Fatalf("starting PostgreSQL: %v", pg.err)
	}
	name := fmt.Sprintf("alarm_test_%d", pg.n.Add(1))
	db, err := sql.Open("pgx", pg.base+"postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return pg.base + name
}

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
