package knowledge

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/snapshot"
	"github.com/openshelf/openshelf/specs"
)

// loadSegmented reads the specs tables of a segmented snapshot's segments
// as one table of its live documents: without the rows of the documents
// the snapshot's deletion table lists, in document id order as one
// merged build writes them (ties in answers follow that order).
func loadSegmented(ctx context.Context, snap *snapshot.Snapshot, p *progress) (*table, error) {
	deleted := map[string]map[string]bool{}
	err := snapshot.ReadParquet(filepath.Join(snap.Dir, snapshot.DeletionsTable+".parquet"), func(rows []deletion) error {
		for _, r := range rows {
			if deleted[r.Segment] == nil {
				deleted[r.Segment] = map[string]bool{}
			}
			deleted[r.Segment][strings.Clone(r.ID)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var rows []specs.Row
	found := false
	for _, seg := range snap.Manifest.Segments {
		gone := deleted[seg.ID]
		err := readRows(ctx, filepath.Join(snap.SegmentDir(seg.ID), specs.TableFile), p, func(r *specs.Row) error {
			if !gone[r.ID] {
				rows = append(rows, cloneRow(r))
			}
			return nil
		})
		if errors.Is(err, errNoTable) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
	}
	t := newTable(snap.ID)
	if !found {
		return t, errNoTable
	}
	// A live document's rows are in one segment, in ordinal order.
	slices.SortStableFunc(rows, func(a, b specs.Row) int { return cmp.Compare(a.ID, b.ID) })
	for i := range rows {
		if err := t.add(&rows[i]); err != nil {
			return nil, err
		}
	}
	t.finish()
	return t, nil
}

// deletion is a row of a segmented snapshot's deletion table.
type deletion struct {
	Segment string `parquet:"segment"`
	ID      string `parquet:"id"`
}

// cloneRow copies r so that it outlives the reader's buffers.
func cloneRow(r *specs.Row) specs.Row {
	c := *r
	for _, s := range []*string{&c.ID, &c.Quantity, &c.Unit, &c.SIUnit, &c.Subject, &c.Family, &c.FamilyKind, &c.Text,
		&c.Where, &c.Source, &c.Table, &c.RowLabel, &c.Column, &c.Title, &c.License, &c.LicenseURL, &c.Attribution} {
		*s = strings.Clone(*s)
	}
	if r.Value != nil {
		v := *r.Value
		c.Value = &v
	}
	if r.SIValue != nil {
		v := *r.SIValue
		c.SIValue = &v
	}
	return c
}
