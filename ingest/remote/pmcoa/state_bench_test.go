package pmcoa

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/pipelines"
)

// benchShard names the shard the generated mirror keeps article i in:
// full shards of defaultShardArticles, as a packed mirror has them.
func benchShard(i int) string {
	return fmt.Sprintf("20261206T033000Z-%04d.tar.zst", i/defaultShardArticles+1)
}

// benchArticle is article i of the generated mirror: the PMCID and
// version of generateInventory's key i.
func benchArticle(i int) (string, int) {
	id, v, _ := parseKey(fmt.Sprintf("metadata/PMC%08d.%d.json", 10_000_000+i, 1+i%7/6))
	return id, v
}

// BenchmarkNightState runs the state side of one night over a mirror of
// benchKeys articles, 1 % of whose metadata changed: the inventory diff
// (as BenchmarkInventoryDiff), the fetching of the 80 000 changed keys a
// batch at a time against the articles file (the downloads replaced by a
// stub: nine in ten changed articles fetched again, one in ten
// retracted), the packing of the 72 000 fetched articles (small generated
// files, 2 KB each) into new shards, and the merge of the last articles
// file with the change log into the next one and the live file. The
// inventory, the last keys and articles files (8 000 000 articles in
// 1 600 shards of 5 000) and the fetched articles' files are generated in
// a temporary directory before the timer; peak RSS is VmHWM, reset after
// the generation. Last, the build's filter is asked about every member of
// 40 shards, in shard order as the build's workers read them.
//
//	go test -run '^$' -bench 'NightState$' -benchtime 1x -timeout 60m ./ingest/remote/pmcoa
func BenchmarkNightState(b *testing.B) {
	dir := b.TempDir()
	files, prevKeys := generateInventory(b, dir, benchKeys)
	articles := filepath.Join(dir, "articles-prev.tsv.zst")
	w, err := createKeys(articles)
	if err != nil {
		b.Fatal(err)
	}
	prevShards := map[string]int{}
	xmlDir := filepath.Join(dir, "xml")
	if err := os.MkdirAll(xmlDir, 0o755); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("<p>generated</p>\n", 120)
	for i := range benchKeys {
		id, v := benchArticle(i)
		if err := w.write([]byte(id + "\t" + entry{version: v, shard: benchShard(i)}.rest())); err != nil {
			b.Fatal(err)
		}
		prevShards[benchShard(i)]++
		if i%100 == 0 { // the changed keys' articles, as downloaded
			x := fmt.Sprintf("<article><front>%s</front><body>%s</body></article>\n", id, body)
			if err := os.WriteFile(filepath.Join(xmlDir, member(id, v)), []byte(x), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.close(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	for b.Loop() {
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		work := filepath.Join(dir, "work")
		os.RemoveAll(work)
		os.RemoveAll(filepath.Join(dir, shardsDir))
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
		if err := sorter.finish(); err != nil {
			b.Fatal(err)
		}
		nextKeys := filepath.Join(dir, "keys-next.tsv.zst")
		removed := writeLines(b, filepath.Join(work, "removed"), nil)
		d, err := diffKeys(sorter.runs, prevKeys, nextKeys, filepath.Join(work, "changed"), func(string) { b.Fatal("removed key") })
		if err != nil {
			b.Fatal(err)
		}
		diffed := time.Since(start)
		stats := &remote.Stats{}
		n := &night{env: &remote.Env{Stats: stats}, size: batch, fetch: func(_ context.Context, _ *remote.Env, _, key, _ string, ba *batchArticles) error {
			id, v, _ := parseKey(key)
			ba.mu.Lock()
			defer ba.mu.Unlock()
			if strings.HasSuffix(id, "000") { // one in ten: retracted
				delete(ba.arts, id)
				return nil
			}
			ba.arts[id] = article{Version: v}
			return nil
		}}
		changes, err := n.run(context.Background(), d, removed, articles, nextKeys, filepath.Join(work, "changes"))
		if err != nil {
			b.Fatal(err)
		}
		fetched := time.Since(start)
		st := state{ArticlesFile: filepath.Base(articles), Shards: prevShards}
		var next state
		filter, placed, err := settle(settleEnv{packEnv: packEnv{dir: filepath.Join(dir, shardsDir), xmlDir: xmlDir, work: work,
			now: time.Date(2026, 12, 7, 3, 30, 0, 0, time.UTC), shardArticles: defaultShardArticles, compress: true}, stateDir: dir}, &st, &next, changes)
		if err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		// The build's filter, over 40 shards' members in shard order.
		kept, asked := 0, 0
		for s := 0; s < 40*defaultShardArticles; s++ {
			id, v := benchArticle(s)
			asked++
			if filter.keep("", &ingest.Document{Origin: filepath.Join(dir, shardsDir, benchShard(s)) + "!" + member(id, v)}) {
				kept++
			}
		}
		filtered := time.Since(start) - wall
		rss := vmHWM()
		sizes := map[string]int64{}
		for name, f := range map[string]string{"keys": nextKeys, "articles": filepath.Join(dir, next.ArticlesFile), "live": filepath.Join(dir, next.Live)} {
			fi, err := os.Stat(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes[name] = fi.Size()
		}
		if n.changed != benchKeys/100 || placed != benchKeys/100*9/10 || len(next.Shards) != len(prevShards)+(placed+defaultShardArticles-1)/defaultShardArticles || kept != asked-40*50 {
			b.Fatalf("changed %d, placed %d, shards %d, filter kept %d of %d", n.changed, placed, len(next.Shards), kept, asked)
		}
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(sizes["keys"]+sizes["articles"])/(1<<20), "checkpoint-MiB")
		b.Logf("%d articles, %d keys changed (%d fetched, %d retracted), %d new shards; diff %s, fetch %s, pack and merge %s; filter %s for %d records of 40 shards",
			benchKeys, d.Count, placed, n.changed-placed, len(next.Shards)-len(prevShards), diffed.Round(time.Millisecond), (fetched - diffed).Round(time.Millisecond),
			(wall - fetched).Round(time.Millisecond), filtered.Round(time.Millisecond), asked)
		b.Logf("files: keys %.1f MiB, articles %.1f MiB, live %.1f MiB", float64(sizes["keys"])/(1<<20), float64(sizes["articles"])/(1<<20), float64(sizes["live"])/(1<<20))
	}
}

// BenchmarkNightStateMap is the peer of BenchmarkNightState's state
// handling: the same 8 000 000 articles kept as the JSON map of state.json
// (read whole, copied, the 80 000 changes applied, the live count of each
// shard taken, written whole), as the adapter kept them before the
// articles file. The inventory diff, the fetching and the packing are left
// out: only what the map costs.
//
//	go test -run '^$' -bench 'NightStateMap$' -benchtime 1x -timeout 60m ./ingest/remote/pmcoa
func BenchmarkNightStateMap(b *testing.B) {
	dir := b.TempDir()
	prev := filepath.Join(dir, "state.json")
	func() {
		arts := make(map[string]article, benchKeys)
		for i := range benchKeys {
			id, v := benchArticle(i)
			arts[id] = article{Version: v, Shard: benchShard(i)}
		}
		if err := remote.SaveJSON(prev, state{Articles: arts}); err != nil {
			b.Fatal(err)
		}
	}()
	runtime.GC()
	debug.FreeOSMemory()
	for b.Loop() {
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		start := time.Now()
		var st state
		if _, err := remote.LoadJSON(prev, &st); err != nil {
			b.Fatal(err)
		}
		next := maps.Clone(st.Articles)
		for i := 0; i < benchKeys; i += 100 {
			id, v := benchArticle(i)
			if strings.HasSuffix(id, "000") {
				delete(next, id)
			} else {
				next[id] = article{Version: v, Shard: "20261207T033000Z-0001.tar.zst"}
			}
		}
		live := map[string]int{}
		for _, a := range next {
			live[a.Shard]++
		}
		out := filepath.Join(dir, "next.json")
		if err := remote.SaveJSON(out, state{Articles: next}); err != nil {
			b.Fatal(err)
		}
		report(b, start, out)
		if len(next) != benchKeys-benchKeys/1000 || len(live) != benchKeys/defaultShardArticles+1 {
			b.Fatalf("%d articles in %d shards", len(next), len(live))
		}
	}
}
