package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/openshelf/openshelf/snapshot"
)

// PullConfig configures a replica's pull.
type PullConfig struct {
	// DataDir is the replica's data directory (current, snapshots/).
	DataDir string
	// Keep is how many snapshots to retain, current included; 0 means 3,
	// as for a local build.
	Keep int
	// Attempts is how many times a file is fetched before the pull fails:
	// a cut download resumes where it stopped, a corrupt one starts over
	// (0: 3).
	Attempts int
	// Workers is how many files are downloaded at once (0: 4).
	Workers int
	Logger  *slog.Logger
}

// PullStats reports what a pull did.
type PullStats struct {
	// ID is the snapshot installed; empty when the replica was up to date.
	ID       string `json:"id,omitempty"`
	Previous string `json:"previous,omitempty"`
	UpToDate bool   `json:"up_to_date"`
	// Files and Bytes are the installed snapshot's files and their size.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Linked files were hard-linked from a kept local snapshot (or from
	// another file of the snapshot with the same content).
	Linked      int   `json:"linked"`
	LinkedBytes int64 `json:"linked_bytes"`
	// Downloaded files came from the store; DownloadedBytes is what
	// crossed the network, refused and resumed downloads included.
	Downloaded      int   `json:"downloaded"`
	DownloadedBytes int64 `json:"downloaded_bytes"`
	// Resumed downloads went on from a partial file; Refused ones did not
	// match their checksum and were fetched again.
	Resumed  int           `json:"resumed"`
	Refused  int           `json:"refused"`
	Pruned   []string      `json:"pruned,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Directories under DATA/replica/.
const (
	manifestsDir = "manifests" // replica manifests of the local snapshots
	partialDir   = "partial"   // <sha256>.part in progress, <sha256> verified
	partExt      = ".part"
)

// Pull installs the newest complete snapshot of st that is newer than the
// replica's current one. It is a no-op (UpToDate) when there is none. On
// any error the previous snapshot stays current; downloaded parts stay in
// DATA/replica/partial/ for the next pull to resume.
func Pull(ctx context.Context, st *Store, cfg PullConfig) (*PullStats, error) {
	start := time.Now()
	p := &puller{st: st, cfg: cfg, log: cfg.Logger, stats: &PullStats{}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.cfg.Keep <= 0 {
		p.cfg.Keep = 3
	}
	if p.cfg.Attempts <= 0 {
		p.cfg.Attempts = 3
	}
	p.cfg.Workers = workers(p.cfg.Workers)
	unlock, err := snapshot.Lock(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := snapshot.RemoveLeftovers(cfg.DataDir); err != nil {
		return nil, err
	}
	cur, err := snapshot.Current(cfg.DataDir)
	if err != nil && !errors.Is(err, snapshot.ErrNoSnapshot) {
		return nil, err
	}
	p.stats.Previous = cur
	m, err := p.newest(ctx, cur)
	if err != nil {
		return nil, err
	}
	if m == nil {
		p.stats.UpToDate = true
		p.stats.Duration = time.Since(start)
		p.log.Info("replica: up to date", "current", cur, "store", st.String())
		return p.stats, nil
	}
	if err := p.install(ctx, m); err != nil {
		return nil, err
	}
	p.stats.ID = m.ID
	pruned, err := p.prune()
	p.stats.Pruned = pruned
	p.stats.Duration = time.Since(start)
	if err != nil {
		return p.stats, err
	}
	p.log.Info("replica: pulled", "id", m.ID, "previous", cur, "store", st.String(),
		"files", p.stats.Files, "bytes", p.stats.Bytes, "linked", p.stats.Linked,
		"downloaded", p.stats.Downloaded, "downloaded_bytes", p.stats.DownloadedBytes,
		"resumed", p.stats.Resumed, "refused", p.stats.Refused, "pruned", pruned)
	return p.stats, nil
}

type puller struct {
	st  *Store
	cfg PullConfig
	log *slog.Logger
	mu  sync.Mutex // guards stats and local while downloads run
	// local maps a content to a local file holding it: in a kept snapshot,
	// or downloaded and verified in DATA/replica/partial/.
	local map[string]string
	stats *PullStats
}

func (p *puller) state(elem ...string) string {
	return filepath.Join(append([]string{p.cfg.DataDir, stateDir}, elem...)...)
}

// newest returns the newest manifest of the store that is newer than cur
// and whose blobs are all in the store, or nil.
func (p *puller) newest(ctx context.Context, cur string) (*Manifest, error) {
	names, err := p.st.list(ctx, snapshotsDir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for name := range names {
		if id, ok := strings.CutSuffix(name, manifestExt); ok && snapshot.ValidID(id) && id > cur {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	blobs, err := p.st.list(ctx, blobsDir)
	if err != nil {
		return nil, err
	}
	for _, id := range slices.Backward(ids) {
		m, err := p.st.manifest(ctx, id)
		if err != nil {
			return nil, err
		}
		missing := 0
		for _, e := range m.Files {
			if n, ok := blobs[e.SHA256]; !ok || n != e.Size {
				missing++
			}
		}
		if missing == 0 {
			return m, nil
		}
		p.log.Warn("replica: skipping an incomplete snapshot", "id", id, "missing_blobs", missing)
	}
	return nil, fmt.Errorf("%w newer than %q in %s", ErrNoSnapshot, cur, p.st)
}

// install writes m into snapshots/.tmp-<id>/ and installs it: the
// contents no kept snapshot holds are downloaded first (Workers at once)
// into DATA/replica/partial/, then every file is linked into place.
func (p *puller) install(ctx context.Context, m *Manifest) error {
	record := p.state(manifestsDir, m.ID+manifestExt)
	if done, err := p.finishInstalled(m, record); done || err != nil {
		return err
	}
	if err := p.loadLocal(); err != nil {
		return err
	}
	downloaded, err := p.fetchMissing(ctx, m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(p.cfg.DataDir, snapshot.SnapshotsDir, snapshot.TmpPrefix+m.ID)
	installed := false
	defer func() {
		if !installed {
			os.RemoveAll(tmp)
		}
	}()
	for _, e := range m.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		dst := filepath.Join(tmp, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		if err := p.place(e, dst); err != nil {
			return err
		}
		if downloaded[e.SHA256] {
			delete(downloaded, e.SHA256) // a second path of it is a link
		} else {
			p.stats.Linked++
			p.stats.LinkedBytes += e.Size
		}
		p.stats.Files++
		p.stats.Bytes += e.Size
	}
	// The local record first: a snapshot installed is always indexed.
	if err := writeRecord(record, m); err != nil {
		return err
	}
	if err := snapshot.Install(p.cfg.DataDir, tmp, m.ID); err != nil {
		os.Remove(record)
		return err
	}
	installed = true
	return nil
}

// finishInstalled deals with a directory snapshots/<id> already there: a
// pull stopped between the rename and the switch, or current pointed back
// by hand. An intact one is switched to (done); a damaged one is moved
// aside to be removed, and the pull goes on.
func (p *puller) finishInstalled(m *Manifest, record string) (done bool, err error) {
	final := filepath.Join(p.cfg.DataDir, snapshot.SnapshotsDir, m.ID)
	if _, err := os.Stat(final); err != nil {
		return false, nil
	}
	if !p.intact(final, m) {
		stale := filepath.Join(p.cfg.DataDir, snapshot.SnapshotsDir, snapshot.TmpPrefix+"stale-"+m.ID)
		if err := os.Rename(final, stale); err != nil {
			return false, fmt.Errorf("replica: %w", err)
		}
		os.Remove(record)
		os.RemoveAll(stale) // or RemoveLeftovers, next time
		return false, nil
	}
	p.log.Info("replica: the snapshot is here already; switching to it", "id", m.ID)
	if err := writeRecord(record, m); err != nil {
		return false, err
	}
	for _, e := range m.Files {
		p.stats.Files++
		p.stats.Bytes += e.Size
		p.stats.Linked++
		p.stats.LinkedBytes += e.Size
	}
	return true, snapshot.SwitchCurrent(p.cfg.DataDir, m.ID)
}

// fetchMissing downloads, Workers at once, each content of m that no
// local file holds, and returns the set of those contents.
func (p *puller) fetchMissing(ctx context.Context, m *Manifest) (map[string]bool, error) {
	missing := map[string]bool{}
	var need []Entry
	for _, e := range m.Files {
		if _, ok := p.local[e.SHA256]; !ok && !missing[e.SHA256] {
			missing[e.SHA256] = true
			need = append(need, e)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.cfg.Workers)
	for _, e := range need {
		g.Go(func() error {
			path, err := p.fetch(gctx, e)
			if err != nil {
				return err
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			p.local[e.SHA256] = path
			p.stats.Downloaded++
			return nil
		})
	}
	return missing, g.Wait()
}

// writeRecord keeps the replica manifest of a local snapshot.
func writeRecord(path string, m *Manifest) error {
	b, err := json.Marshal(m)
	if err == nil {
		err = writeFileSync(path, b)
	}
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	return nil
}

// intact reports whether dir holds exactly the files of m, with their
// contents.
func (p *puller) intact(dir string, m *Manifest) bool {
	want := make(map[string]Entry, len(m.Files))
	for _, e := range m.Files {
		want[e.Path] = e
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		e, ok := want[filepath.ToSlash(rel)]
		if !ok || !d.Type().IsRegular() {
			return fmt.Errorf("%s is not in the manifest", rel)
		}
		sum, size, err := hashFile(path)
		if err != nil || sum != e.SHA256 || size != e.Size {
			return fmt.Errorf("%s differs from the manifest", rel)
		}
		n++
		return nil
	})
	if err != nil || n != len(want) {
		p.log.Warn("replica: replacing a damaged copy of the snapshot", "dir", dir, "err", err, "files", n, "want", len(want))
		return false
	}
	return true
}

// place hard-links the local file holding e's content at dst, or copies
// it where a link cannot be made (another file system, too many links).
func (p *puller) place(e Entry, dst string) error {
	src := p.local[e.SHA256]
	err := os.Link(src, dst)
	if err == nil {
		return nil
	}
	p.log.Debug("replica: cannot link, copying", "src", src, "err", err)
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, e.Mode)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	_, err = io.Copy(out, in)
	if serr := out.Sync(); err == nil {
		err = serr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("replica: copy %s: %w", src, err)
	}
	return nil
}

// fetch downloads blob e.SHA256 into its partial file, resuming from the
// part's length, and once its content checks out renames it to
// DATA/replica/partial/<sha256>, where it stays until a pull installs a
// snapshot: a pull that fails later does not lose it.
func (p *puller) fetch(ctx context.Context, e Entry) (string, error) {
	done := p.state(partialDir, e.SHA256)
	part := done + partExt
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		return "", fmt.Errorf("replica: %w", err)
	}
	var last error
	for attempt := 0; attempt < p.cfg.Attempts; attempt++ {
		if err := p.download(ctx, part, e); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				// Cancelled while the download was cut: the cause is the
				// cancellation, whichever the transfer reported.
				return "", fmt.Errorf("replica: download %s: %w", e.SHA256, cerr)
			}
			p.log.Warn("replica: download cut, will resume", "sha256", e.SHA256, "path", e.Path, "err", err)
			last = err
			continue
		}
		sum, n, err := hashFile(part)
		if err != nil {
			return "", err
		}
		if sum == e.SHA256 && n == e.Size {
			if err := os.Chmod(part, e.Mode); err != nil {
				return "", fmt.Errorf("replica: %w", err)
			}
			if err := os.Rename(part, done); err != nil {
				return "", fmt.Errorf("replica: %w", err)
			}
			return done, nil
		}
		p.mu.Lock()
		p.stats.Refused++
		p.mu.Unlock()
		p.log.Warn("replica: corrupt download refused, fetching again", "path", e.Path,
			"want_sha256", e.SHA256, "got_sha256", sum, "want_bytes", e.Size, "got_bytes", n)
		if err := os.Remove(part); err != nil {
			return "", fmt.Errorf("replica: %w", err)
		}
		last = fmt.Errorf("%w: blob %s for %s", ErrChecksum, e.SHA256, e.Path)
	}
	return "", last
}

// download appends to part what it lacks of blob e.SHA256, with a ranged
// GET from the part's length, and syncs it.
func (p *puller) download(ctx context.Context, part string, e Entry) error {
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	defer f.Close()
	off, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	if off > e.Size { // not this blob's prefix: start over
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		if off, err = f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("replica: %w", err)
		}
	}
	if off == e.Size && off > 0 {
		return nil
	}
	if off > 0 {
		p.mu.Lock()
		p.stats.Resumed++
		p.mu.Unlock()
		p.log.Info("replica: resuming a download", "path", e.Path, "offset", off, "bytes", e.Size)
	}
	body, err := p.st.get(ctx, blobKey(e.SHA256), off)
	if err != nil {
		return err
	}
	defer body.Close()
	// One byte more than expected is enough to tell a wrong object.
	n, cerr := io.Copy(f, io.LimitReader(body, e.Size-off+1))
	p.mu.Lock()
	p.stats.DownloadedBytes += n
	p.mu.Unlock()
	// Keep what arrived, even when cut: the next attempt resumes after it.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("replica: download %s: %w", e.SHA256, cerr)
	}
	return nil
}

// loadLocal indexes the contents of the kept local snapshots from their
// replica manifests (DATA/replica/manifests/<id>.json), each file checked
// to still be there with its size.
func (p *puller) loadLocal() error {
	p.local = map[string]string{}
	ids, err := snapshot.List(p.cfg.DataDir)
	if err != nil {
		return err
	}
	for _, id := range ids {
		b, err := os.ReadFile(p.state(manifestsDir, id+manifestExt))
		if errors.Is(err, fs.ErrNotExist) {
			continue // built here, or pulled before the record existed
		}
		if err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		m, err := decodeManifest(b, id)
		if err != nil {
			p.log.Warn("replica: ignoring a damaged local record", "id", id, "err", err)
			continue
		}
		for _, e := range m.Files {
			path := filepath.Join(p.cfg.DataDir, snapshot.SnapshotsDir, id, filepath.FromSlash(e.Path))
			if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == e.Size {
				p.local[e.SHA256] = path
			}
		}
	}
	// Downloads a failed pull verified and left.
	entries, _ := os.ReadDir(p.state(partialDir))
	for _, e := range entries {
		if validSum(e.Name()) && e.Type().IsRegular() {
			p.local[e.Name()] = p.state(partialDir, e.Name())
		}
	}
	return nil
}

// prune removes the snapshots beyond Keep, the records of snapshots no
// longer there and the parts of finished downloads.
func (p *puller) prune() ([]string, error) {
	removed, err := snapshot.Prune(p.cfg.DataDir, p.cfg.Keep)
	if err != nil {
		return removed, err
	}
	ids, err := snapshot.List(p.cfg.DataDir)
	if err != nil {
		return removed, err
	}
	entries, _ := os.ReadDir(p.state(manifestsDir))
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), manifestExt)
		if !ok || !slices.Contains(ids, id) {
			os.Remove(p.state(manifestsDir, e.Name()))
		}
	}
	// Whatever is left was downloaded for this snapshot, which now holds it
	// (or for an older one, which will not be pulled).
	if err := os.RemoveAll(p.state(partialDir)); err != nil {
		return removed, fmt.Errorf("replica: %w", err)
	}
	return removed, nil
}
