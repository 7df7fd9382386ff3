package openalex

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/gzip"
	"github.com/parquet-go/parquet-go"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/licence"
)

// The Parquet copy (params.layout "parquet", data/parquet/works/) saves
// the decoding of the works no published licence covers: the licence
// columns of each row group are read first (primary_location.license,
// best_oa_location.license, locations[].license), a row group without a
// work carrying a licence the source publishes is skipped without reading
// its other columns, and only the works that carry one are reconstructed
// whole and written, as JSON Lines, to a gzip file beside the part (the
// form the OpenAlex reader reads). The licence rules still decide every
// record the build reads.

// parquetSuffix names the JSON Lines file a Parquet part becomes.
const parquetSuffix = ".jsonl.gz"

// licenceColumn reports whether a leaf column holds a location licence.
func licenceColumn(path []string) bool {
	if len(path) < 2 || path[len(path)-1] != "license" {
		return false
	}
	switch path[0] {
	case "primary_location", "best_oa_location", "locations":
		return true
	}
	return false
}

// gateParquet writes to dst the works of the Parquet part src that carry a
// licence of families, and counts the others as rejected.
func gateParquet(src, dst string, families []licence.Family, stats *remote.Stats) (err error) {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return fmt.Errorf("%w: %s: %v", remote.ErrUpstream, filepath.Base(src), err)
	}
	var cols []int
	for i, path := range pf.Schema().Columns() {
		if licenceColumn(path) {
			cols = append(cols, i)
		}
	}
	tmp := dst + ".part"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		out.Close()
		if err != nil {
			os.Remove(tmp)
		}
	}()
	zw := gzip.NewWriter(out)
	bw := bufio.NewWriterSize(zw, 1<<20)
	for _, rg := range pf.RowGroups() {
		keep, err := licensed(rg, cols, families)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(src), err)
		}
		kept := 0
		for _, k := range keep {
			if k {
				kept++
			}
		}
		for range len(keep) - kept {
			stats.Reject("licence:no-published-location")
		}
		if kept == 0 {
			continue
		}
		if err := writeKept(rg, pf.Schema(), keep, bw); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(src), err)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := out.Sync(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// licensed reads the licence columns of a row group and reports, per row,
// whether a location carries a licence of families.
func licensed(rg parquet.RowGroup, cols []int, families []licence.Family) ([]bool, error) {
	keep := make([]bool, rg.NumRows())
	ok := map[string]bool{}
	accept := func(v string) bool {
		a, seen := ok[v]
		if !seen {
			t, parsed := licence.Parse(licence.Evidence{Kind: licence.KindOpenAlex, Value: v})
			a = parsed && t.Accepted() && slices.Contains(families, t.Family)
			ok[v] = a
		}
		return a
	}
	chunks := rg.ColumnChunks()
	vals := make([]parquet.Value, 1024)
	for _, c := range cols {
		pages := chunks[c].Pages()
		row := -1
		for {
			page, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return nil, err
			}
			r := page.Values()
			for {
				n, err := r.ReadValues(vals)
				for _, v := range vals[:n] {
					if v.RepetitionLevel() == 0 {
						row++
					}
					if row < len(keep) && !v.IsNull() && accept(v.String()) {
						keep[row] = true
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return nil, err
				}
			}
		}
		pages.Close()
	}
	return keep, nil
}

// writeKept reconstructs the kept rows of a row group as JSON lines.
func writeKept(rg parquet.RowGroup, schema *parquet.Schema, keep []bool, w io.Writer) error {
	rows := rg.Rows()
	defer rows.Close()
	buf := make([]parquet.Row, 64)
	i := 0
	for {
		n, err := rows.ReadRows(buf)
		for _, row := range buf[:n] {
			if i < len(keep) && keep[i] {
				m := map[string]any{}
				if err := schema.Reconstruct(&m, row); err != nil {
					return err
				}
				b, err := json.Marshal(m)
				if err != nil {
					return err
				}
				w.Write(append(b, '\n'))
			}
			i++
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
