package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/openshelf/openshelf/snapshot"
)

// ErrPostgres reports a PostgreSQL cluster that cannot be set up.
var ErrPostgres = errors.New("bench: PostgreSQL")

// pgSide is the private PostgreSQL cluster and its HTTP front.
type pgSide struct {
	cfg      *Config
	dir      string // Dir/pg: cluster, socket, log
	data     string // Dir/pg/data
	port     int
	base     string
	pool     chan *pgx.Conn
	srv      *http.Server
	total    int64
	loadTime time.Duration
	reused   bool
	bytes    int64
}

// pgSettings are the server settings of the run. fsync and friends are
// off because the cluster is scratch space rebuilt from the snapshot (they
// only matter while loading); wal_level=minimal lets the load and the
// index builds skip the WAL (each fills a relation its own transaction
// created), which halves the disk a 10M load needs; jit is off
// because it costs short queries tens of milliseconds; shared_buffers
// holds the hot part of the table and index; maintenance_work_mem lets
// the GIN build sort in fewer passes.
const pgSettings = "-c listen_addresses=127.0.0.1 -c shared_buffers=512MB -c effective_cache_size=4GB " +
	"-c work_mem=32MB -c maintenance_work_mem=4GB -c max_wal_size=8GB -c jit=off -c fsync=off " +
	"-c synchronous_commit=off -c full_page_writes=off -c wal_level=minimal -c max_wal_senders=0 " +
	"-c max_connections=64"

// pgCommand runs a PostgreSQL binary as cfg.PGUser when we are root
// (PostgreSQL refuses to run as root), directly otherwise.
func (p *pgSide) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	bin := filepath.Join(p.cfg.PGBin, name)
	if os.Geteuid() == 0 {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", p.cfg.PGUser, "--", bin}, args...)...)
	}
	return exec.CommandContext(ctx, bin, args...)
}

func (p *pgSide) run(ctx context.Context, name string, args ...string) error {
	out, err := p.command(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s %s: %v: %s", ErrPostgres, name, strings.Join(args, " "), err, out)
	}
	return nil
}

// startPostgres starts (creating it when needed) the cluster under
// cfg.Dir/pg, loads the corpus unless the cluster already holds this
// snapshot, and serves it over HTTP on a loopback port.
func startPostgres(ctx context.Context, cfg *Config, c *corpusInfo) (*pgSide, error) {
	p := &pgSide{cfg: cfg, dir: filepath.Join(cfg.Dir, "pg")}
	p.data = filepath.Join(p.dir, "data")
	if strings.ContainsAny(p.dir, " '\"\\") {
		return nil, fmt.Errorf("%w: directory %q must not contain spaces or quotes", ErrConfig, p.dir)
	}
	if _, err := os.Stat(filepath.Join(cfg.PGBin, "pg_ctl")); err != nil {
		return nil, fmt.Errorf("%w: no pg_ctl in %s (apt-get install postgresql, or scripts/setup.sh)", ErrPostgres, cfg.PGBin)
	}
	if _, err := os.Stat(filepath.Join(p.data, "PG_VERSION")); err != nil {
		if err := p.initdb(ctx); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p.port = port
	opts := fmt.Sprintf("-c port=%d -c unix_socket_directories=%s %s", port, p.dir, pgSettings)
	if err := p.run(ctx, "pg_ctl", "-D", p.data, "-l", filepath.Join(p.dir, "postgres.log"), "-w", "-t", "300",
		"-o", opts, "start"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			p.stop()
		}
	}()
	size := max(cfg.Concurrency, cfg.StatsConcurrency) + 1
	p.pool = make(chan *pgx.Conn, size)
	for i := 0; i < size; i++ {
		conn, err := p.connect(ctx)
		if err != nil {
			return nil, err
		}
		p.pool <- conn
	}
	if err := p.ensureLoaded(ctx, c); err != nil {
		return nil, err
	}
	conn := <-p.pool
	err = conn.QueryRow(ctx, "SELECT count(*), pg_total_relation_size('docs') FROM docs").Scan(&p.total, &p.bytes)
	p.pool <- conn
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPostgres, err)
	}
	if p.total != int64(c.n) {
		return nil, fmt.Errorf("%w: the docs table has %d rows, the corpus %d", ErrPostgres, p.total, c.n)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.base = "http://" + ln.Addr().String()
	p.srv = &http.Server{Handler: p.handler(), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	ok = true
	return p, nil
}

func (p *pgSide) initdb(ctx context.Context) error {
	if err := os.RemoveAll(p.dir); err != nil {
		return err
	}
	if err := os.MkdirAll(p.data, 0o700); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup(p.cfg.PGUser)
		if err != nil {
			return fmt.Errorf("%w: user %s: %v", ErrPostgres, p.cfg.PGUser, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, d := range []string{p.dir, p.data} {
			if err := os.Chown(d, uid, gid); err != nil {
				return err
			}
		}
		// The postgres user must be able to reach the directory.
		for d := filepath.Dir(p.dir); d != "/"; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 {
				return fmt.Errorf("%w: %s is not searchable by %s; use a -dir under /tmp or chmod o+x it", ErrPostgres, d, p.cfg.PGUser)
			}
		}
	}
	return p.run(ctx, "initdb", "-D", p.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
}

func (p *pgSide) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port))
	if err != nil {
		return nil, fmt.Errorf("%w: connect: %v", ErrPostgres, err)
	}
	return conn, nil
}

// ensureLoaded loads the snapshot's documents unless the cluster holds
// them already (bench_meta names the snapshot).
func (p *pgSide) ensureLoaded(ctx context.Context, c *corpusInfo) error {
	conn := <-p.pool
	defer func() { p.pool <- conn }()
	var loaded string
	err := conn.QueryRow(ctx, "SELECT snapshot FROM bench_meta").Scan(&loaded)
	if err == nil && loaded == c.key && !p.cfg.Rebuild {
		p.reused = true
		p.cfg.Logger.Info("bench: reusing the PostgreSQL table", "snapshot", loaded)
		return nil
	}
	p.cfg.Logger.Info("bench: loading PostgreSQL", "documents", c.n)
	start := time.Now()
	for _, q := range []string{
		"CREATE EXTENSION IF NOT EXISTS unaccent",
		"DROP VIEW IF EXISTS docs_in",
		"DROP TABLE IF EXISTS bench_meta, docs",
		"DROP FUNCTION IF EXISTS docs_in()",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrPostgres, q, err)
		}
	}
	if err := copyDocuments(ctx, conn, c.snap); err != nil {
		return err
	}
	p.cfg.Logger.Info("bench: PostgreSQL rows copied", "elapsed", time.Since(start))
	for _, q := range []string{
		"ALTER TABLE docs ADD PRIMARY KEY (id)",
		"CREATE INDEX docs_tsv ON docs USING gin (tsv)",
		"VACUUM (ANALYZE) docs",
		"CREATE TABLE bench_meta (snapshot text)",
	} {
		qs := time.Now()
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrPostgres, firstLine(q), err)
		}
		p.cfg.Logger.Info("bench: PostgreSQL", "step", firstLine(q), "elapsed", time.Since(qs).Round(time.Millisecond))
	}
	// Keyed by the corpus, not the snapshot: rebuilding our index from
	// the same corpus (-rebuild-ours) keeps this load.
	if _, err := conn.Exec(ctx, "INSERT INTO bench_meta VALUES ($1)", c.key); err != nil {
		return fmt.Errorf("%w: %v", ErrPostgres, err)
	}
	p.loadTime = time.Since(start)
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// pgLoadSchema is the docs table and the view COPY writes into. The
// view's trigger turns each input row into a docs row: the tsvector is
// computed there, so the abstract's text and the keywords are never
// stored and no second copy of the table exists while loading (at 10M
// documents that copy would not fit the bench machine's disk).
//
// Weights: title A, keywords B, author names C, abstract D; the 'simple'
// configuration (no stemming, no stop words, like ours with stem=false)
// over unaccent (accent folding, like ours).
var pgLoadSchema = []string{
	`CREATE TABLE docs (id text NOT NULL, title text, authors text[], year int, venue text, topics text[],
		license text, license_url text, has_fulltext bool, has_references bool, tsv tsvector)`,
	`CREATE VIEW docs_in AS SELECT id, title, NULL::text[] AS keywords, authors, year, venue, topics, license,
		license_url, has_fulltext, has_references, NULL::text AS abstract FROM docs`,
	`CREATE FUNCTION docs_in() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO docs VALUES (NEW.id, NEW.title, NEW.authors, NEW.year, NEW.venue, NEW.topics, NEW.license,
			NEW.license_url, NEW.has_fulltext, NEW.has_references,
			setweight(to_tsvector('simple', unaccent(coalesce(NEW.title, ''))), 'A') ||
			setweight(to_tsvector('simple', unaccent(array_to_string(NEW.keywords, ' '))), 'B') ||
			setweight(to_tsvector('simple', unaccent(array_to_string(NEW.authors, ' '))), 'C') ||
			setweight(to_tsvector('simple', unaccent(coalesce(NEW.abstract, ''))), 'D'));
		RETURN NULL;
	END $$`,
	"CREATE TRIGGER docs_in INSTEAD OF INSERT ON docs_in FOR EACH ROW EXECUTE FUNCTION docs_in()",
}

// copyDocuments creates the docs table and streams the documents
// (documentFiles) into it with COPY, in one transaction (so that, with
// wal_level=minimal, the rows skip the WAL). They come in id order (a
// generated corpus's segments hold consecutive ids), and so does the heap.
func copyDocuments(ctx context.Context, conn *pgx.Conn, snap *snapshot.Snapshot) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPostgres, err)
	}
	defer tx.Rollback(ctx)
	for _, q := range pgLoadSchema {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrPostgres, firstLine(q), err)
		}
	}
	files, err := documentFiles(snap)
	if err != nil {
		return err
	}
	docs := &docRows{files: files}
	defer docs.close()
	src := pgx.CopyFromFunc(func() ([]any, error) {
		d, err := docs.next()
		if d == nil || err != nil {
			return nil, err
		}
		return []any{d.ID, d.Title, d.Keywords, d.authorNames(), d.Year, d.Venue, d.Topics, d.License,
			d.LicenseURL, d.HasFulltext, d.HasReferences, d.Abstract}, nil
	})
	cols := []string{"id", "title", "keywords", "authors", "year", "venue", "topics", "license", "license_url",
		"has_fulltext", "has_references", "abstract"}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"docs_in"}, cols, src); err != nil {
		return fmt.Errorf("%w: copy: %v", ErrPostgres, err)
	}
	for _, q := range []string{"DROP VIEW docs_in", "DROP FUNCTION docs_in()"} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrPostgres, q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%w: commit: %v", ErrPostgres, err)
	}
	return nil
}

// stop shuts the HTTP front and the cluster down.
func (p *pgSide) stop() {
	if p.srv != nil {
		p.srv.Close()
	}
	if p.pool != nil {
	drain:
		for {
			select {
			case c := <-p.pool:
				c.Close(context.Background())
			default:
				break drain
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.run(ctx, "pg_ctl", "-D", p.data, "-m", "fast", "-w", "stop"); err != nil {
		p.cfg.Logger.Warn("bench: stopping PostgreSQL", "err", err)
	}
}

// memory sums the proportional set size (PSS: shared pages divided among
// the processes sharing them) of the postmaster and its children.
func (p *pgSide) memory() Memory {
	b, err := os.ReadFile(filepath.Join(p.data, "postmaster.pid"))
	if err != nil {
		return Memory{}
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		return Memory{}
	}
	pids := []int{pid}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at ')'.
		s := string(st)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				pids = append(pids, n)
			}
		}
	}
	var m Memory
	for _, pid := range pids {
		m.RSS += pss(pid)
	}
	m.HWM = -1 // no peak for a process tree
	return m
}

func pss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "Pss:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// pgEntry is a hit or catalog entry of the PostgreSQL front: the same
// fields as the server's catalog entries.
type pgEntry struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Authors       []string `json:"authors"`
	Year          int32    `json:"year,omitempty"`
	Venue         string   `json:"venue,omitempty"`
	Topics        []string `json:"topics"`
	License       string   `json:"license"`
	LicenseURL    string   `json:"license_url"`
	HasFulltext   bool     `json:"has_fulltext"`
	HasReferences bool     `json:"has_references"`
	Score         *float32 `json:"score,omitempty"`
}

type pgPage struct {
	Query  string                  `json:"query,omitempty"`
	Total  int64                   `json:"total"`
	Limit  int                     `json:"limit"`
	Offset int                     `json:"offset"`
	Items  []pgEntry               `json:"items"`
	Facets map[string][]facetCount `json:"facets,omitempty"`
	Next   string                  `json:"next_cursor,omitempty"`
}

const pgEntryColumns = "id, title, authors, year, venue, topics, license, license_url, has_fulltext, has_references"

// pgSearchSQL is the PostgreSQL equivalent of /api/search: the tsquery
// the bench renders from the query's syntax tree (tsquery), ranked by
// ts_rank_cd with weights in the ratio of our field weights (title 3,
// keywords 2, authors 1, abstract 1; the array is {D, C, B, A}), best
// first, with the exact total.
const pgSearchSQL = `SELECT ` + pgEntryColumns + `, ts_rank_cd('{0.3333, 0.3333, 0.6667, 1.0}', tsv, q) AS rank,
	count(*) OVER () AS total
	FROM docs, to_tsquery('simple', $1) AS q
	WHERE tsv @@ q
	ORDER BY rank DESC, id
	LIMIT $2 OFFSET $3`

// pgKeysetSQL is the next page after (rank $3, id $4) in the same order:
// keyset pagination, the way to page deep in PostgreSQL.
const pgKeysetSQL = `SELECT * FROM (SELECT ` + pgEntryColumns + `,
	ts_rank_cd('{0.3333, 0.3333, 0.6667, 1.0}', tsv, q) AS rank, count(*) OVER () AS total
	FROM docs, to_tsquery('simple', $1) AS q WHERE tsv @@ q) s
	WHERE rank < $3 OR (rank = $3 AND id > $4)
	ORDER BY rank DESC, id
	LIMIT $2`

// pgYearSQL sorts the matches newest first (sort=-year).
const pgYearSQL = `SELECT ` + pgEntryColumns + `, 0::real AS rank, count(*) OVER () AS total
	FROM docs WHERE tsv @@ to_tsquery('simple', $1)
	ORDER BY year DESC NULLS LAST, id
	LIMIT $2 OFFSET $3`

// pgFacetSQL counts license, topic and year over every match: GROUP BY
// over the matching rows.
const pgFacetSQL = `WITH m AS MATERIALIZED (SELECT license, topics, year FROM docs WHERE tsv @@ to_tsquery('simple', $1))
	SELECT 'license', license, count(*) FROM m GROUP BY license
	UNION ALL SELECT 'topic', t, count(*) FROM m, unnest(topics) AS t GROUP BY t
	UNION ALL SELECT 'year', year::text, count(*) FROM m WHERE year > 0 GROUP BY year`

const pgCatalogSQL = `SELECT ` + pgEntryColumns + ` FROM docs ORDER BY id LIMIT $1 OFFSET $2`

func (p *pgSide) handler() http.Handler {
	mux := http.NewServeMux()
	intParam := func(r *http.Request, name string, def int) int {
		if n, err := strconv.Atoi(r.URL.Query().Get(name)); err == nil && n >= 0 {
			return n
		}
		return def
	}
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		page, err := p.search(r)
		writePG(w, page, err)
	})
	mux.HandleFunc("GET /catalog", func(w http.ResponseWriter, r *http.Request) {
		limit, offset := intParam(r, "limit", 20), intParam(r, "offset", 0)
		page := pgPage{Total: p.total, Limit: limit, Offset: offset, Items: []pgEntry{}}
		err := p.with(r.Context(), func(conn *pgx.Conn) error {
			rows, err := conn.Query(r.Context(), pgCatalogSQL, limit, offset)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var e pgEntry
				if err := rows.Scan(&e.ID, &e.Title, &e.Authors, &e.Year, &e.Venue, &e.Topics, &e.License, &e.LicenseURL,
					&e.HasFulltext, &e.HasReferences); err != nil {
					return err
				}
				page.Items = append(page.Items, e)
			}
			return rows.Err()
		})
		writePG(w, page, err)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		var n int64
		err := p.with(r.Context(), func(conn *pgx.Conn) error {
			return conn.QueryRow(r.Context(), "SELECT count(*) FROM docs").Scan(&n)
		})
		writePG(w, map[string]int64{"documents": n}, err)
	})
	return mux
}

// with runs fn on a pooled connection.
func (p *pgSide) with(ctx context.Context, fn func(*pgx.Conn) error) error {
	select {
	case conn := <-p.pool:
		defer func() {
			if conn.IsClosed() {
				// A cancelled query closes its connection: replace it.
				if c, err := p.connect(context.Background()); err == nil {
					conn = c
				}
			}
			p.pool <- conn
		}()
		return fn(conn)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func writePG(w http.ResponseWriter, v any, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(append(b, '\n'))
}

// search answers GET /search?tsq=...&limit=&offset=&sort=&facets=&cursor=
// (tsq is tsquery text, see tsquery).
func (p *pgSide) search(r *http.Request) (pgPage, error) {
	v := r.URL.Query()
	q := v.Get("tsq")
	limit, offset := 10, 0
	if n, err := strconv.Atoi(v.Get("limit")); err == nil && n > 0 {
		limit = n
	}
	if n, err := strconv.Atoi(v.Get("offset")); err == nil && n >= 0 {
		offset = n
	}
	page := pgPage{Query: q, Limit: limit, Offset: offset, Items: []pgEntry{}}
	sqlText, args := pgSearchSQL, []any{q, limit, offset}
	switch {
	case v.Get("sort") == "-year":
		sqlText = pgYearSQL
	case v.Get("cursor") != "":
		rank, id, ok := strings.Cut(v.Get("cursor"), "|")
		f, err := strconv.ParseFloat(rank, 32)
		if !ok || err != nil {
			return page, fmt.Errorf("bad cursor %q", v.Get("cursor"))
		}
		sqlText, args = pgKeysetSQL, []any{q, limit, float32(f), id}
	}
	var last float32
	err := p.with(r.Context(), func(conn *pgx.Conn) error {
		rows, err := conn.Query(r.Context(), sqlText, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e pgEntry
			if err := rows.Scan(&e.ID, &e.Title, &e.Authors, &e.Year, &e.Venue, &e.Topics, &e.License, &e.LicenseURL,
				&e.HasFulltext, &e.HasReferences, &last, &page.Total); err != nil {
				return err
			}
			rank := last
			e.Score = &rank
			page.Items = append(page.Items, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if v.Get("facets") == "" {
			return nil
		}
		page.Facets = map[string][]facetCount{}
		rows, err = conn.Query(r.Context(), pgFacetSQL, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f string
			var fc facetCount
			if err := rows.Scan(&f, &fc.Value, &fc.Count); err != nil {
				return err
			}
			page.Facets[f] = append(page.Facets[f], fc)
		}
		return rows.Err()
	})
	if err == nil && len(page.Items) == limit && v.Get("sort") == "" {
		page.Next = strconv.FormatFloat(float64(last), 'g', -1, 32) + "|" + page.Items[len(page.Items)-1].ID
	}
	return page, err
}
