package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/openshelf/openshelf/replica"
)

func init() {
	register(command{
		name:    "publish",
		summary: "upload a snapshot to S3-compatible storage for the replicas (only what the store lacks)",
		run:     runPublish,
	})
	register(command{
		name:    "pull",
		summary: "install the newest snapshot published to S3-compatible storage (only what is not here)",
		run:     runPull,
	})
}

const publishSynopsis = `openshelf publish [flags]

Uploads the current snapshot (or -id) to the bucket: each file content the
store lacks as blobs/<sha256>, then snapshots/<id>.json naming every file
with its size and SHA-256, then the pointer latest. Run it on the machine
that builds, after each ingest. Credentials come from AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (none for a public bucket);
they are never logged.`

const pullSynopsis = `openshelf pull [flags]

Installs the newest complete snapshot of the bucket when it is newer than
DATA/current: files whose content a kept snapshot holds are hard-linked,
the others downloaded (resumed after a cut, checked against their SHA-256),
then current is switched atomically and old snapshots pruned beyond -keep.
A replica that missed nights goes straight to the newest. Any failure
leaves the previous snapshot current; exit 1. Run it on each replica from
a timer; serve picks the new snapshot up within its -watch interval.`

// storeFlags are the flags shared by publish and pull.
type storeFlags struct {
	data, endpoint, bucket, prefix, region, logLevel string
	workers                                          int
	json                                             bool
}

func (s *storeFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&s.data, "data", "data", "data `directory` holding current and snapshots/")
	fs.StringVar(&s.endpoint, "endpoint", "", "object store base `URL` (https://s3.REGION.amazonaws.com, http://minio:9000; default $AWS_ENDPOINT_URL_S3 or $AWS_ENDPOINT_URL)")
	fs.StringVar(&s.bucket, "bucket", "", "`bucket` holding the published snapshots")
	fs.StringVar(&s.prefix, "prefix", "", "key `prefix` inside the bucket (e.g. openshelf/)")
	fs.StringVar(&s.region, "region", "", "bucket `region` (default $AWS_REGION; empty asks the store)")
	fs.IntVar(&s.workers, "workers", 0, "files transferred at once (0: the default, 4)")
	fs.StringVar(&s.logLevel, "log-level", "info", "log `level`: debug, info, warn, error")
	fs.BoolVar(&s.json, "json", false, "print the outcome as JSON on stdout")
}

// store builds the store from the flags and the standard AWS environment.
func (s *storeFlags) store(e *env) (*replica.Store, error) {
	cfg := replica.StoreConfig{Endpoint: s.endpoint, Bucket: s.bucket, Prefix: s.prefix, Region: s.region,
		AccessKey: e.getenv("AWS_ACCESS_KEY_ID"), SecretKey: e.getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: e.getenv("AWS_SESSION_TOKEN")}
	for _, v := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if cfg.Endpoint == "" {
			cfg.Endpoint = e.getenv(v)
		}
	}
	if cfg.Region == "" {
		cfg.Region = e.getenv("AWS_REGION")
	}
	if cfg.Endpoint == "" {
		return nil, fmt.Errorf("%w: no -endpoint (or AWS_ENDPOINT_URL)", replica.ErrConfig)
	}
	return replica.NewStore(cfg)
}

// parseStoreCommand parses a publish or pull command line; it returns the
// exit code to stop with, or -1 to go on.
func parseStoreCommand(e *env, name, synopsis string, fs *flag.FlagSet, s *storeFlags, args []string) (*replica.Store, *slog.Logger, int) {
	fs.SetOutput(e.stderr)
	s.add(fs)
	fs.Usage = flagUsage(fs, e.stderr, synopsis)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, exitOK
		}
		return nil, nil, exitUsage
	}
	fail := func(err error) (*replica.Store, *slog.Logger, int) {
		fmt.Fprintf(e.stderr, "openshelf %s: %v\n", name, err)
		return nil, nil, exitUsage
	}
	if err := applyEnv(fs, e.getenv); err != nil {
		return fail(err)
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if s.workers < 0 {
		return fail(errors.New("-workers cannot be negative"))
	}
	level, err := parseLevel(s.logLevel)
	if err != nil {
		return fail(err)
	}
	st, err := s.store(e)
	if err != nil {
		return fail(err)
	}
	return st, slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level})), -1
}

func runPublish(ctx context.Context, e *env, args []string) int {
	var s storeFlags
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	id := fs.String("id", "", "snapshot `id` to publish (default: the current one)")
	storeKeep := fs.Int("store-keep", 0, "after publishing, keep only the newest N snapshots in the bucket and delete the blobs no kept one names (0: keep all)")
	st, log, code := parseStoreCommand(e, "publish", publishSynopsis, fs, &s, args)
	if code >= 0 {
		return code
	}
	if *storeKeep < 0 {
		fmt.Fprintln(e.stderr, "openshelf publish: -store-keep cannot be negative")
		return exitUsage
	}
	stats, err := replica.Publish(ctx, st, replica.PublishConfig{DataDir: s.data, ID: *id, Workers: s.workers,
		StoreKeep: *storeKeep, Logger: log})
	return report(e, "publish", s.json, stats, err, func(w io.Writer) {
		fmt.Fprintf(w, "published %s to %s: %d files, %d bytes; uploaded %d blobs, %d bytes\n",
			stats.ID, st, stats.Files, stats.Bytes, stats.Uploaded, stats.UploadedBytes)
		if len(stats.SweptSnapshots) > 0 {
			fmt.Fprintf(w, "swept %d snapshots from the bucket: %d blobs, %d bytes\n",
				len(stats.SweptSnapshots), stats.SweptBlobs, stats.SweptBytes)
		}
	})
}

func runPull(ctx context.Context, e *env, args []string) int {
	var s storeFlags
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	keep := fs.Int("keep", 0, "snapshots to keep, current included (0: the default, 3)")
	attempts := fs.Int("attempts", 0, "times a file is fetched before the pull fails (0: the default, 3)")
	st, log, code := parseStoreCommand(e, "pull", pullSynopsis, fs, &s, args)
	if code >= 0 {
		return code
	}
	if *keep < 0 || *attempts < 0 {
		fmt.Fprintln(e.stderr, "openshelf pull: -keep and -attempts cannot be negative")
		return exitUsage
	}
	stats, err := replica.Pull(ctx, st, replica.PullConfig{DataDir: s.data, Keep: *keep, Attempts: *attempts,
		Workers: s.workers, Logger: log})
	return report(e, "pull", s.json, stats, err, func(w io.Writer) {
		if stats.UpToDate {
			fmt.Fprintf(w, "up to date with %s (current %s)\n", st, stats.Previous)
			return
		}
		fmt.Fprintf(w, "installed %s from %s: %d files, %d bytes; %d linked, %d downloaded (%d bytes, %d resumed, %d refused)\n",
			stats.ID, st, stats.Files, stats.Bytes, stats.Linked, stats.Downloaded, stats.DownloadedBytes, stats.Resumed, stats.Refused)
	})
}

// report prints a command's outcome: the stats as JSON or text on stdout,
// the error on stderr.
func report(e *env, name string, asJSON bool, stats any, err error, text func(io.Writer)) int {
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf %s: %v\n", name, err)
		if errors.Is(err, replica.ErrConfig) {
			return exitUsage
		}
		return exitFailure
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(stats); err != nil {
			fmt.Fprintf(e.stderr, "openshelf %s: %v\n", name, err)
			return exitFailure
		}
		return exitOK
	}
	text(e.stdout)
	return exitOK
}
