package pmcoa

import (
	"bufio"
	"compress/gzip"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/pipelines"
)

// benchKeys is the size of the PMC bucket's metadata inventory (about 8
// million keys).
const benchKeys = 8_000_000

// BenchmarkInventoryDiff diffs a generated inventory of benchKeys metadata
// keys, 1 % of them with a changed ETag, against the checkpoint of the
// previous one: reading the gzip CSVs in S3 Inventory form (8 files, rows
// in no particular order), sorting them in runs, merging the runs against
// the sorted checkpoint and writing the new one. The data is generated in
// a temporary directory before the timer (never committed); peak RSS is
// VmHWM, reset after the generation.
//
//	go test -run '^$' -bench 'InventoryDiff$' -benchtime 1x -timeout 40m ./ingest/remote/pmcoa
func BenchmarkInventoryDiff(b *testing.B) {
	dir := b.TempDir()
	files, prev := generateInventory(b, dir, benchKeys)
	runtime.GC()
	debug.FreeOSMemory()
	for b.Loop() {
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		work := filepath.Join(dir, "work")
		os.RemoveAll(work)
		start := time.Now()
		sorter, err := newRunSorter(work)
		if err != nil {
			b.Fatal(err)
		}
		src := &pipelines.Source{Include: []string{"metadata/PMC*.json"}}
		for _, f := range files {
			if err := readInventory(f, 1, 4, src, sorter.add); err != nil {
				b.Fatal(err)
			}
		}
		if err := sorter.flush(); err != nil {
			b.Fatal(err)
		}
		removed := 0
		next := filepath.Join(dir, "next.tsv.zst")
		d, err := diffKeys(sorter.runs, prev, next, filepath.Join(work, "changed"), func(string) { removed++ })
		if err != nil {
			b.Fatal(err)
		}
		report(b, start, next)
		if d.Keys != benchKeys || d.Count != benchKeys/100 {
			b.Fatalf("diff %+v, want %d keys and %d changed", d, benchKeys, benchKeys/100)
		}
		b.Logf("%d keys, %d changed, %d removed, %d runs", d.Keys, d.Count, removed, len(sorter.runs))
	}
}

// report reports the wall time since start, the peak RSS and the size of
// the checkpoint written.
func report(b *testing.B, start time.Time, checkpoint string) {
	b.Helper()
	wall := time.Since(start)
	rss := vmHWM()
	fi, err := os.Stat(checkpoint)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(fi.Size())/(1<<20), "checkpoint-MiB")
}

// generateInventory writes n keys as 8 gzip CSV inventory files (rows
// shuffled by a stride) and the checkpoint of the previous inventory, in
// which every hundredth key had another ETag. PMCIDs have 8 digits, as
// the newest real ones, so that numeric order is key order.
func generateInventory(b *testing.B, dir string, n int) ([]string, string) {
	b.Helper()
	etag := func(i int, changed bool) string {
		var buf [9]byte
		binary.LittleEndian.PutUint64(buf[:8], uint64(i))
		if changed {
			buf[8] = 1
		}
		h := md5.Sum(buf[:])
		return hex.EncodeToString(h[:])
	}
	key := func(i int) string { return fmt.Sprintf("metadata/PMC%08d.%d.json", 10_000_000+i, 1+i%7/6) }
	prev := filepath.Join(dir, "prev.tsv.zst")
	w, err := createKeys(prev)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := w.write([]byte(key(i) + "\t" + etag(i, i%100 == 0))); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		b.Fatal(err)
	}
	const parts = 8
	const stride = 7_919 // prime, coprime with n: visits every key once
	var files []string
	for p := range parts {
		name := filepath.Join(dir, "inventory-"+strconv.Itoa(p)+".csv.gz")
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
		bw := bufio.NewWriterSize(zw, 1<<20)
		for j := p * n / parts; j < (p+1)*n/parts; j++ {
			i := j * stride % n
			fmt.Fprintf(bw, "\"pmc-oa-opendata\",\"%s\",\"%d\",\"2026-11-23T11:47:59.000Z\",\"%s\"\n",
				strings.ReplaceAll(key(i), "/", "%2F"), 900+i%300, etag(i, false))
		}
		bw.Flush()
		zw.Close()
		f.Close()
		files = append(files, name)
	}
	return files, prev
}

// vmHWM is the process's peak RSS (VmHWM) in bytes.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkInventoryDiffMap is the peer of BenchmarkInventoryDiff: the
// same inventory diffed the way the adapter did before the on-disk diff,
// both inventories as Go maps and the checkpoint a JSON map read and
// written whole (remote.LoadJSON and remote.SaveJSON).
//
//	go test -run '^$' -bench InventoryDiffMap -benchtime 1x -timeout 40m ./ingest/remote/pmcoa
func BenchmarkInventoryDiffMap(b *testing.B) {
	dir := b.TempDir()
	files, prev := generateInventory(b, dir, benchKeys)
	type checkpoint struct {
		ETags map[string]string `json:"etags"`
	}
	prevJSON := filepath.Join(dir, "prev.json")
	func() {
		old := checkpoint{ETags: map[string]string{}}
		r, err := openKeys(prev)
		if err != nil {
			b.Fatal(err)
		}
		if err := eachBatch(r, 1<<16, func(keys, etags []string) error {
			for i, k := range keys {
				old.ETags[k] = etags[i]
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if err := remote.SaveJSON(prevJSON, old); err != nil {
			b.Fatal(err)
		}
	}()
	runtime.GC()
	debug.FreeOSMemory()
	for b.Loop() {
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		start := time.Now()
		var old checkpoint
		if _, err := remote.LoadJSON(prevJSON, &old); err != nil {
			b.Fatal(err)
		}
		etags := map[string]string{}
		src := &pipelines.Source{Include: []string{"metadata/PMC*.json"}}
		for _, f := range files {
			if err := readInventory(f, 1, 4, src, func(k, e string) error { etags[k] = e; return nil }); err != nil {
				b.Fatal(err)
			}
		}
		changed := 0
		for k, e := range etags {
			if old.ETags[k] != e {
				changed++
			}
		}
		next := filepath.Join(dir, "next.json")
		if err := remote.SaveJSON(next, checkpoint{etags}); err != nil {
			b.Fatal(err)
		}
		report(b, start, next)
		if changed != benchKeys/100 {
			b.Fatalf("%d changed, want %d", changed, benchKeys/100)
		}
	}
}
