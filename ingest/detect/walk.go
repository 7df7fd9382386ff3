package detect

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is one input file found by Walk.
type File struct {
	Path string // as given or joined onto the directory given; cleaned
	Size int64
}

// Walk calls fn for every regular file named by paths, expanding
// directories recursively. The order is deterministic: paths in the order
// given, each directory's entries in lexical order (filepath.WalkDir).
// Inside a directory, entries whose name starts with "." are ignored
// (.git, .DS_Store); a path given explicitly is always used. Symbolic links
// to files are followed, links to directories are not (no cycles). A file
// reached twice is visited once.
//
// A path that does not exist is an error (the operator mistyped it); fn's
// error stops the walk and is returned, as does ctx's.
func Walk(ctx context.Context, paths []string, fn func(File) error) error {
	seen := map[string]bool{}
	// visit calls fn for the file at path unless its real path, key, has
	// been visited.
	visit := func(key, path string, size int64) error {
		if seen[key] {
			return nil
		}
		seen[key] = true
		return fn(File{Path: path, Size: size})
	}
	for _, root := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		root = filepath.Clean(root)
		st, err := os.Stat(root)
		if err != nil {
			return fmt.Errorf("input %w", err)
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				return fmt.Errorf("input %s: not a regular file or directory", root)
			}
			if err := visit(realPath(root), root, st.Size()); err != nil {
				return err
			}
			continue
		}
		// The walk follows no link to a directory, so the real path of a
		// regular file it meets is the root's joined with the rest of its
		// path: resolving the root once spares an lstat of every
		// component of every file's path (a second of CPU per 40 000
		// files).
		realRoot, rootErr := filepath.EvalSymlinks(root)
		if rootErr == nil {
			realRoot, rootErr = filepath.Abs(realRoot)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if path != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case d.IsDir():
				return nil
			case d.Type().IsRegular():
				info, err := d.Info()
				if err != nil {
					return err
				}
				key := ""
				if rel, err := filepath.Rel(root, path); err == nil && rootErr == nil {
					key = filepath.Join(realRoot, rel)
				} else {
					key = realPath(path)
				}
				return visit(key, path, info.Size())
			case d.Type()&fs.ModeSymlink != 0:
				st, err := os.Stat(path)
				if err != nil || !st.Mode().IsRegular() {
					return nil // dangling or a directory: skipped
				}
				return visit(realPath(path), path, st.Size())
			}
			return nil // sockets, devices, pipes
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// realPath is path with its symbolic links resolved, made absolute: what
// tells that two paths name the same file. A path that does not resolve
// stands for itself.
func realPath(path string) string {
	key := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		key = real
	}
	if abs, err := filepath.Abs(key); err == nil {
		key = abs
	}
	return key
}
