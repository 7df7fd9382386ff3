package replica

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/openshelf/openshelf/snapshot"
)

// PublishConfig says which snapshot to publish.
type PublishConfig struct {
	// DataDir is the data directory holding current and snapshots/.
	DataDir string
	// ID is the snapshot to publish; empty for the one current points to.
	ID string
	// Workers is how many blobs are uploaded at once (0: 4).
	Workers int
	// StoreKeep, when positive, sweeps the store after publishing: only
	// the newest StoreKeep manifests are kept, and the blobs none of them
	// names are deleted. A replica in the middle of pulling a swept
	// snapshot fails, and its next pull takes the newest.
	StoreKeep int
	Logger    *slog.Logger
}

// PublishStats reports what a publication did.
type PublishStats struct {
	ID string `json:"id"`
	// Files and Bytes are the snapshot's regular files and their size.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Uploaded and UploadedBytes are the blobs the store lacked.
	Uploaded      int   `json:"uploaded"`
	UploadedBytes int64 `json:"uploaded_bytes"`
	// HashedBytes were read to compute checksums (the cache and the
	// snapshot manifest's checksums spare the rest).
	HashedBytes int64 `json:"hashed_bytes"`
	// Swept are the manifests and blobs deleted by StoreKeep, SweptBytes
	// the size of those blobs.
	SweptSnapshots []string      `json:"swept_snapshots,omitempty"`
	SweptBlobs     int           `json:"swept_blobs,omitempty"`
	SweptBytes     int64         `json:"swept_bytes,omitempty"`
	Duration       time.Duration `json:"duration_ns"`
}

// hashCacheFile is the publisher's checksum cache, under DATA/replica/.
const hashCacheFile = "hashes.json"

// fileKey identifies a file's content as long as it is not rewritten:
// snapshots are immutable, and a hard link shares the key of its source.
func fileKey(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano())
}

// Publish uploads a local snapshot to st: the blobs it lacks, then the
// replica manifest, then the latest pointer. Publishing a snapshot again
// uploads nothing but the manifest.
func Publish(ctx context.Context, st *Store, cfg PublishConfig) (*PublishStats, error) {
	start := time.Now()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	id := cfg.ID
	if id == "" {
		cur, err := snapshot.Current(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		id = cur
	}
	if !snapshot.ValidID(id) {
		return nil, fmt.Errorf("%w: %q is not a snapshot id", ErrConfig, id)
	}
	snap, err := snapshot.OpenDir(filepath.Join(cfg.DataDir, snapshot.SnapshotsDir, id))
	if err != nil {
		return nil, err
	}
	cachePath := filepath.Join(cfg.DataDir, stateDir, hashCacheFile)
	cache := map[string]string{}
	if b, err := os.ReadFile(cachePath); err == nil {
		json.Unmarshal(b, &cache) // a damaged cache only costs hashing
	}
	claimed := map[string]snapshot.File{}
	for _, f := range snap.Manifest.Files {
		claimed[f.Name] = f
	}
	stats := &PublishStats{ID: id}
	m := Manifest{ID: id, Published: time.Now().UTC()}
	seen := map[string]string{}   // this run's cache entries: hashed here
	verified := map[string]bool{} // sums hashed here or earlier (the cache)
	paths := map[string]string{}  // sum -> a local file with it, hashed if any is
	keys := map[string][]string{} // sum -> file keys claimed by the manifest
	err = filepath.WalkDir(snap.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(snap.Dir, p)
		rel = filepath.ToSlash(rel)
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("replica: %s is not a regular file; a snapshot holds only files", p)
		}
		key := fileKey(fi)
		sum, ok := cache[key]
		switch c, found := claimed[rel]; {
		case ok:
		case found && c.Bytes == fi.Size() && validSum(c.SHA256):
			// Trusted to find the blob; hashed before any upload.
			sum = c.SHA256
			if !verified[sum] {
				paths[sum] = p
			}
			keys[sum] = append(keys[sum], key)
		default:
			if sum, _, err = hashFile(p); err != nil {
				return err
			}
			stats.HashedBytes += fi.Size()
			ok = true
		}
		if ok {
			verified[sum] = true
			paths[sum] = p
			if key != "" {
				seen[key] = sum
			}
		}
		m.Files = append(m.Files, Entry{Path: rel, Size: fi.Size(), SHA256: sum, Mode: fi.Mode().Perm()})
		stats.Files++
		stats.Bytes += fi.Size()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replica: publish %s: %w", id, err)
	}
	slices.SortFunc(m.Files, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })

	have, err := st.list(ctx, blobsDir)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	for _, e := range m.Files {
		sizes[e.SHA256] = e.Size
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers(cfg.Workers))
	var mu sync.Mutex
	for _, sum := range sortedKeys(sizes) {
		if n, ok := have[sum]; ok && n == sizes[sum] {
			continue
		}
		g.Go(func() error {
			if err := upload(gctx, st, paths[sum], sum, sizes[sum], !verified[sum]); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if !verified[sum] {
				stats.HashedBytes += sizes[sum]
				for _, k := range keys[sum] {
					if k != "" {
						seen[k] = sum // hashed by upload
					}
				}
			}
			stats.Uploaded++
			stats.UploadedBytes += sizes[sum]
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	body, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	if err := st.put(ctx, manifestKey(id), bytes.NewReader(body), int64(len(body)), "application/json"); err != nil {
		return nil, err
	}
	if err := moveLatest(ctx, st, id); err != nil {
		return nil, err
	}
	if cfg.StoreKeep > 0 {
		if err := sweep(ctx, st, cfg.StoreKeep, stats); err != nil {
			return nil, err
		}
	}
	if b, err := json.Marshal(seen); err == nil {
		if err := writeFileSync(cachePath, b); err != nil {
			log.Warn("replica: cannot save the hash cache", "path", cachePath, "err", err)
		}
	}
	stats.Duration = time.Since(start)
	log.Info("replica: published", "id", id, "store", st.String(), "files", stats.Files, "bytes", stats.Bytes,
		"uploaded", stats.Uploaded, "uploaded_bytes", stats.UploadedBytes, "hashed_bytes", stats.HashedBytes,
		"swept_snapshots", stats.SweptSnapshots, "swept_blobs", stats.SweptBlobs, "swept_bytes", stats.SweptBytes)
	return stats, nil
}

// sweep deletes the manifests older than the newest keep, then the blobs
// that no remaining manifest names. Manifests go first, so that no reader
// trusts a snapshot whose blobs are going.
func sweep(ctx context.Context, st *Store, keep int, stats *PublishStats) error {
	names, err := st.list(ctx, snapshotsDir)
	if err != nil {
		return err
	}
	var ids []string
	for name := range names {
		if id, ok := strings.CutSuffix(name, manifestExt); ok && snapshot.ValidID(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if len(ids) <= keep {
		return nil
	}
	for _, id := range ids[:len(ids)-keep] {
		if err := st.remove(ctx, manifestKey(id)); err != nil {
			return err
		}
		stats.SweptSnapshots = append(stats.SweptSnapshots, id)
	}
	named := map[string]bool{}
	for _, id := range ids[len(ids)-keep:] {
		m, err := st.manifest(ctx, id)
		if err != nil {
			return err
		}
		for _, e := range m.Files {
			named[e.SHA256] = true
		}
	}
	blobs, err := st.list(ctx, blobsDir)
	if err != nil {
		return err
	}
	for _, sum := range sortedKeys(blobs) {
		if named[sum] {
			continue
		}
		if err := st.remove(ctx, blobKey(sum)); err != nil {
			return err
		}
		stats.SweptBlobs++
		stats.SweptBytes += blobs[sum]
	}
	return nil
}

// upload puts the file p as blobs/<sum>. When check is set the checksum
// came from the snapshot's manifest: the file is hashed first, so that a
// damaged file is never published under its old checksum.
func upload(ctx context.Context, st *Store, p, sum string, size int64, check bool) error {
	if check {
		got, _, err := hashFile(p)
		if err != nil {
			return err
		}
		if got != sum {
			return fmt.Errorf("%w: %s has sha256 %s, its manifest says %s", ErrChecksum, p, got, sum)
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	defer f.Close()
	return st.put(ctx, blobKey(sum), f, size, "application/octet-stream")
}

// moveLatest points latest at id unless it names a newer snapshot (an
// older one published again does not move it back).
func moveLatest(ctx context.Context, st *Store, id string) error {
	if body, err := st.get(ctx, latestKey, 0); err == nil {
		b, _ := io.ReadAll(io.LimitReader(body, 128))
		body.Close()
		if old := string(bytes.TrimSpace(b)); snapshot.ValidID(old) && old > id {
			return nil
		}
	} else if !errors.Is(err, errNotFound) {
		return err
	}
	line := []byte(id + "\n")
	return st.put(ctx, latestKey, bytes.NewReader(line), int64(len(line)), "text/plain")
}

// hashFile returns the SHA-256 of the file at p and its length.
func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, fmt.Errorf("replica: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", n, fmt.Errorf("replica: hash %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// writeFileSync writes b to p through a synced temporary file renamed over
// it, so a crash leaves the old file or the new one.
func writeFileSync(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return snapshot.SyncDir(filepath.Dir(p))
}

// workers returns n, or the default number of transfers at once.
func workers(n int) int {
	if n <= 0 {
		return 4
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
