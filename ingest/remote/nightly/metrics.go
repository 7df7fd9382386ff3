package nightly

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest/remote"
)

// writeMetrics writes the last run's outcome in the Prometheus text format
// for node_exporter's textfile collector (point its
// --collector.textfile.directory at the file's directory, or copy it
// there). The file is replaced atomically, so the collector never reads
// half of it.
func writeMetrics(path string, s *Summary) error {
	var b strings.Builder
	gauge := func(name, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
	}
	gauge("openshelf_nightly_last_run_timestamp_seconds", "End of the last nightly run (Unix time).")
	fmt.Fprintf(&b, "openshelf_nightly_last_run_timestamp_seconds %d\n", time.Now().Unix())
	gauge("openshelf_nightly_last_run_success", "1 when the last nightly run published (or had nothing to publish), 0 when it failed.")
	fmt.Fprintf(&b, "openshelf_nightly_last_run_success %d\n", b2i(s.OK))
	gauge("openshelf_nightly_last_run_duration_seconds", "Wall time of the last nightly run.")
	fmt.Fprintf(&b, "openshelf_nightly_last_run_duration_seconds %.3f\n", time.Since(s.Started).Seconds())
	// The last success survives failed runs, so that an alert on its age
	// keeps firing instead of losing its series.
	last := lastSuccess(path)
	if s.OK {
		last = time.Now().Unix()
	}
	if last > 0 {
		gauge("openshelf_nightly_last_success_timestamp_seconds", "End of the last successful nightly run (Unix time).")
		fmt.Fprintf(&b, "openshelf_nightly_last_success_timestamp_seconds %d\n", last)
	}
	if s.Ingest != nil {
		gauge("openshelf_nightly_documents_accepted", "Documents published by the last run's snapshot.")
		fmt.Fprintf(&b, "openshelf_nightly_documents_accepted %d\n", s.Ingest.Accepted)
	}
	type metric struct {
		name, help string
		value      func(*remote.Stats) float64
	}
	per := []metric{
		{"openshelf_nightly_source_success", "1 when the source was fetched.", nil},
		{"openshelf_nightly_source_fetched_files", "Files or pages downloaded by the last run.", func(s *remote.Stats) float64 { return float64(s.Fetched) }},
		{"openshelf_nightly_source_skipped_files", "Files unchanged or already on disk.", func(s *remote.Stats) float64 { return float64(s.Skipped) }},
		{"openshelf_nightly_source_bytes", "Bytes received.", func(s *remote.Stats) float64 { return float64(s.Bytes) }},
		{"openshelf_nightly_source_retries", "Requests retried (errors, 429, 5xx).", func(s *remote.Stats) float64 { return float64(s.Retries) }},
		{"openshelf_nightly_source_corrupt_downloads", "Downloads rejected by their checksum.", func(s *remote.Stats) float64 { return float64(s.Corrupt) }},
		{"openshelf_nightly_source_errors", "Errors that failed the source.", func(s *remote.Stats) float64 { return float64(s.Errors) }},
		{"openshelf_nightly_source_duration_seconds", "Time spent fetching.", func(s *remote.Stats) float64 { return s.Duration.Seconds() }},
	}
	for _, m := range per {
		gauge(m.name, m.help)
		for _, src := range s.Sources {
			v := float64(b2i(src.OK))
			if m.value != nil {
				v = m.value(src.Stats)
			}
			fmt.Fprintf(&b, "%s{source=%q} %g\n", m.name, src.Name, v)
		}
	}
	gauge("openshelf_nightly_source_rejected", "Records not fetched, by reason (licence, retraction...).")
	for _, src := range s.Sources {
		for _, r := range slices.Sorted(maps.Keys(src.Rejected)) {
			fmt.Fprintf(&b, "openshelf_nightly_source_rejected{source=%q,reason=%q} %d\n", src.Name, r, src.Rejected[r])
		}
	}
	return remote.WriteFileAtomic(path, []byte(b.String()))
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// lastSuccess reads the last success time from the previous metrics file.
func lastSuccess(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "openshelf_nightly_last_success_timestamp_seconds "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
