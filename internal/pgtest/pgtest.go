// Package pgtest runs a throw-away PostgreSQL cluster for tests: Debian's
// postgresql binaries (scripts/setup.sh installs them), initdb on a temp
// directory, a random loopback port, trust authentication, fsync off.
// PostgreSQL refuses to run as root, so as root the cluster runs as the
// postgres user through runuser. Missing binaries fail the test: they are
// a setup problem, never a reason to skip.
package pgtest

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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/openshelf/openshelf/internal/needs"
)

var cluster struct {
	once sync.Once
	dir  string
	bin  string
	as   []string // command prefix to run as the cluster's owner
	base string   // URL without the database name
	err  error
	n    atomic.Int64
}

func binDir() string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	return filepath.Dir(matches[len(matches)-1])
}

func start() {
	c := &cluster
	c.bin = binDir()
	if c.bin == "" {
		c.err = fmt.Errorf("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin: run scripts/setup.sh")
		return
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		c.err = err
		return
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			c.err = fmt.Errorf("running as root and there is no postgres user to run the cluster: %v", err)
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			c.err = err
			return
		}
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	data := filepath.Join(dir, "data")
	if out, err := run(filepath.Join(c.bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"); err != nil {
		c.err = fmt.Errorf("initdb: %v\n%s", err, out)
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		c.err = err
		return
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300", port, dir)
	if out, err := run(filepath.Join(c.bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		c.err = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
		return
	}
	c.base = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/", port)
}

func run(name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, cluster.as...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cluster.dir
	return cmd.CombinedOutput()
}

// Stop stops the cluster, if one was started; call it from TestMain after
// m.Run.
func Stop() {
	if cluster.base != "" {
		run(filepath.Join(cluster.bin, "pg_ctl"), "-D", filepath.Join(cluster.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	if cluster.dir != "" {
		os.RemoveAll(cluster.dir)
	}
}

// NewDatabase returns the URL of a fresh, empty database on the test
// cluster, starting the cluster on first use.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	needs.Heavy(tb, "PostgreSQL")
	cluster.once.Do(start)
	if cluster.err != nil {
		tb.Fatalf("starting PostgreSQL: %v", cluster.err)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), cluster.n.Add(1))
	db, err := sql.Open("pgx", cluster.base+"postgres")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatal(err)
	}
	return cluster.base + name
}
