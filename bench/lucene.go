package bench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

// ErrLucene reports a Lucene side that cannot be set up.
var ErrLucene = errors.New("bench: Lucene")

//go:embed lucene/LuceneBench.java
var luceneSource []byte

// luceneJars are the jars of Debian's liblucene8-java the harness needs.
var luceneJars = []string{"core", "queryparser", "analyzers-common", "facet", "queries", "sandbox"}

// luceneSide is the Java harness serving a Lucene index over HTTP.
type luceneSide struct {
	cmd       *exec.Cmd
	done      chan error
	base      string
	index     string // the index directory
	indexTime time.Duration
	reused    bool
	bytes     int64
	log       *os.File
}

// luceneClasspath finds the jars under dir (Debian: /usr/share/java).
func luceneClasspath(dir string) (string, error) {
	var cp []string
	for _, j := range luceneJars {
		m, _ := filepath.Glob(filepath.Join(dir, "lucene-"+j+"-*.jar"))
		if len(m) == 0 {
			m, _ = filepath.Glob(filepath.Join(dir, "lucene-"+j+".jar"))
		}
		if len(m) == 0 {
			return "", fmt.Errorf("%w: no lucene-%s jar in %s (apt-get install liblucene8-java, or scripts/setup.sh)", ErrLucene, j, dir)
		}
		cp = append(cp, m[0])
	}
	return strings.Join(cp, ":"), nil
}

// startLucene compiles the harness, indexes the corpus unless the index
// under Dir/lucene was built from the same corpus, and serves it.
func startLucene(ctx context.Context, cfg *Config, c *corpusInfo) (*luceneSide, error) {
	dir := filepath.Join(cfg.Dir, "lucene")
	classes, idx := filepath.Join(dir, "classes"), filepath.Join(dir, "index")
	if err := os.MkdirAll(classes, 0o755); err != nil {
		return nil, err
	}
	cp, err := luceneClasspath(cfg.LuceneJars)
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "LuceneBench.java")
	if err := os.WriteFile(src, luceneSource, 0o644); err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, "javac", "-nowarn", "-d", classes, "-cp", cp, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: javac: %v: %s", ErrLucene, err, out)
	}
	cp += ":" + classes
	l := &luceneSide{done: make(chan error, 1), index: idx}
	stampPath := filepath.Join(dir, "corpus")
	if b, err := os.ReadFile(stampPath); err == nil && string(b) == c.key && !cfg.Rebuild {
		l.reused = true
		cfg.Logger.Info("bench: reusing the Lucene index", "corpus", c.key)
	} else {
		os.Remove(stampPath)
		if err := os.RemoveAll(idx); err != nil {
			return nil, err
		}
		start := time.Now()
		out, err := indexLucene(ctx, cfg, c, cp, idx)
		if err != nil {
			return nil, err
		}
		l.indexTime = time.Since(start)
		cfg.Logger.Info("bench: Lucene index built", "elapsed", l.indexTime.Round(time.Second), "out", out)
		if err := os.WriteFile(stampPath, []byte(c.key), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "index-ms"), []byte(strconv.FormatInt(l.indexTime.Milliseconds(), 10)), 0o644); err != nil {
			return nil, err
		}
	}
	if l.reused {
		if b, err := os.ReadFile(filepath.Join(dir, "index-ms")); err == nil {
			n, _ := strconv.ParseInt(string(b), 10, 64)
			l.indexTime = time.Duration(n) * time.Millisecond
		}
	}
	l.bytes = dirSize(idx)
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	lf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	l.log = lf
	// sun.net.httpserver.nodelay: without TCP_NODELAY the JDK's server
	// writes headers and body in two segments and every keep-alive
	// request waits ~40 ms for a delayed ACK (Nagle), which would
	// measure TCP, not Lucene.
	l.cmd = exec.Command("java", "-Xmx"+cfg.LuceneHeap, "-Dsun.net.httpserver.nodelay=true", "-cp", cp,
		"LuceneBench", "serve", idx, strconv.Itoa(port))
	l.cmd.Stderr = lf
	l.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := l.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := l.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start: %v", ErrLucene, err)
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "READY") {
				ready <- nil
				io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- fmt.Errorf("%w: the server ended before it was ready; see %s", ErrLucene, lf.Name())
	}()
	go func() { l.done <- l.cmd.Wait() }()
	select {
	case err := <-ready:
		if err != nil {
			l.stop()
			return nil, err
		}
	case <-ctx.Done():
		l.stop()
		return nil, ctx.Err()
	case <-time.After(10 * time.Minute):
		l.stop()
		return nil, fmt.Errorf("%w: not ready after 10 minutes", ErrLucene)
	}
	l.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	return l, nil
}

func (l *luceneSide) memory() Memory { return procMemory(l.cmd.Process.Pid) }

func (l *luceneSide) stop() {
	if l.cmd == nil || l.cmd.Process == nil {
		return
	}
	stopChild(l.cmd, l.done, 20*time.Second)
	l.log.Close()
}

// indexLucene builds the Lucene index, streaming the documents to the
// harness's standard input as TSV (a file of them would take as much
// disk as the index and more), and returns what the harness printed.
func indexLucene(ctx context.Context, cfg *Config, c *corpusInfo, cp, idx string) (string, error) {
	cmd := exec.CommandContext(ctx, "java", "-Xmx"+cfg.LuceneHeap, "-cp", cp, "LuceneBench", "index", "-", idx)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("%w: index: %v", ErrLucene, err)
	}
	exportErr := exportTSV(ctx, c.snap, in)
	if err := in.Close(); exportErr == nil {
		exportErr = err
	}
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("%w: index: %v: %s", ErrLucene, err, out.Bytes())
	}
	if exportErr != nil {
		return "", fmt.Errorf("bench: export documents to Lucene: %w", exportErr)
	}
	return strings.TrimSpace(out.String()), nil
}

// exportTSV writes the snapshot's documents (documentFiles) to out in
// the harness's TSV (format in LuceneBench.java).
func exportTSV(ctx context.Context, snap *snapshot.Snapshot, out io.Writer) error {
	w := bufio.NewWriterSize(out, 1<<20)
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	list := func(vs []string) string { return clean.Replace(strings.Join(vs, "\x1f")) }
	files, err := documentFiles(snap)
	if err != nil {
		return err
	}
	for _, f := range files {
		err := snapshot.ReadParquet(f, func(docs []peerDoc) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			for i := range docs {
				d := &docs[i]
				y := ""
				if d.Year > 0 {
					y = strconv.Itoa(int(d.Year))
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%t\n", d.ID, clean.Replace(d.Title), clean.Replace(d.Abstract),
					list(d.Keywords), list(d.authorNames()), y, clean.Replace(d.License), list(d.Topics), d.HasFulltext)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return w.Flush()
}

// dirSize is the total size of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
