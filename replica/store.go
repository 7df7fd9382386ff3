package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// StoreConfig names a bucket of an S3-compatible object store and how to
// reach it. The credentials are the standard AWS ones (the command reads
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and
// AWS_REGION); they are never logged.
type StoreConfig struct {
	// Endpoint is the store's base URL: https://s3.eu-west-1.amazonaws.com,
	// https://minio.internal:9000, http://127.0.0.1:9000. It carries no
	// credentials.
	Endpoint string
	Bucket   string
	// Prefix is prepended to every key ("openshelf/" puts the snapshots
	// under openshelf/snapshots/); empty for the bucket's root.
	Prefix string
	// Region is the bucket's region; empty lets the client ask the store.
	Region string
	// AccessKey and SecretKey sign the requests; both empty for a public
	// bucket (anonymous reads).
	AccessKey, SecretKey, SessionToken string
	// MaxRetries is how often the client retries a failed request (0: the
	// client's default, 10; 1: no retry).
	MaxRetries int
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
}

// Store is a bucket prefix holding published snapshots:
//
//	<prefix>blobs/<sha256>       one object per distinct file content
//	<prefix>snapshots/<id>.json  the replica manifest of each snapshot
//	<prefix>latest               the id of the newest snapshot published
type Store struct {
	client *minio.Client
	core   minio.Core
	bucket string
	prefix string
	// where names the store in logs and errors, without credentials.
	where string
}

// Keys and key prefixes of a store, below its prefix.
const (
	blobsDir     = "blobs/"
	snapshotsDir = "snapshots/"
	latestKey    = "latest"
	manifestExt  = ".json"
)

// NewStore checks cfg and returns a Store. It makes no request.
func NewStore(cfg StoreConfig) (*Store, error) {
	// The endpoint is echoed in errors only once it is known to hold no
	// credentials.
	u, err := url.Parse(cfg.Endpoint)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: the endpoint is not a URL", ErrConfig)
	case u.User != nil:
		return nil, fmt.Errorf("%w: the endpoint carries credentials; give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", ErrConfig)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("%w: endpoint %q is not an http(s) URL", ErrConfig, cfg.Endpoint)
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		return nil, fmt.Errorf("%w: endpoint %q has a path; give the bucket and prefix separately", ErrConfig, cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, fmt.Errorf("%w: no bucket", ErrConfig)
	}
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return nil, fmt.Errorf("%w: give both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither", ErrConfig)
	}
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	client, err := minio.New(u.Host, &minio.Options{
		Creds:      creds,
		Secure:     u.Scheme == "https",
		Region:     cfg.Region,
		Transport:  cfg.Transport,
		MaxRetries: cfg.MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &Store{client: client, core: minio.Core{Client: client}, bucket: cfg.Bucket, prefix: prefix,
		where: u.Scheme + "://" + u.Host + "/" + cfg.Bucket + "/" + prefix}, nil
}

// String names the store (endpoint, bucket, prefix) for logs.
func (s *Store) String() string { return s.where }

func blobKey(sum string) string { return blobsDir + sum }

func manifestKey(id string) string { return snapshotsDir + id + manifestExt }

// list returns the keys under dir (relative to the store's prefix) with
// their sizes.
func (s *Store) list(ctx context.Context, dir string) (map[string]int64, error) {
	out := map[string]int64{}
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + dir, Recursive: true}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("replica: list %s%s: %w", s.where, dir, obj.Err)
		}
		out[strings.TrimPrefix(obj.Key, s.prefix+dir)] = obj.Size
	}
	return out, nil
}

// put uploads size bytes from r under key and checks that the store kept
// that many.
//
// The payload is sent unsigned: every blob is checked against its SHA-256
// by the replicas, so signing it would hash each byte once more, and over
// plain http the client would otherwise switch to aws-chunked streaming
// signatures, which some S3-compatible servers keep undecoded in the parts
// of a multipart upload.
func (s *Store) put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	info, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, r, size,
		minio.PutObjectOptions{ContentType: contentType, DisableContentSha256: true})
	if err != nil {
		return fmt.Errorf("replica: upload %s%s: %w", s.where, key, err)
	}
	stat, err := s.client.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	if err != nil {
		return fmt.Errorf("replica: upload %s%s: %w", s.where, key, err)
	}
	if stat.Size != size {
		s.remove(ctx, key)
		return fmt.Errorf("%w: the store kept %d bytes of the %d uploaded to %s%s (reported %d)", ErrChecksum, stat.Size, size, s.where, key, info.Size)
	}
	return nil
}

// get opens key from byte offset on. The caller closes the body.
func (s *Store) get(ctx context.Context, key string, offset int64) (io.ReadCloser, error) {
	var opts minio.GetObjectOptions
	if offset > 0 {
		if err := opts.SetRange(offset, 0); err != nil {
			return nil, fmt.Errorf("replica: %w", err)
		}
	}
	body, _, _, err := s.core.GetObject(ctx, s.bucket, s.prefix+key, opts)
	if err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			err = fmt.Errorf("%w: %v", errNotFound, err)
		}
		return nil, fmt.Errorf("replica: get %s%s: %w", s.where, key, err)
	}
	return body, nil
}

// remove deletes key.
func (s *Store) remove(ctx context.Context, key string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("replica: remove %s%s: %w", s.where, key, err)
	}
	return nil
}

// errNotFound marks a missing object.
var errNotFound = errors.New("no such object")

// manifest reads and checks the replica manifest of snapshot id.
func (s *Store) manifest(ctx context.Context, id string) (*Manifest, error) {
	body, err := s.get(ctx, manifestKey(id), 0)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("replica: read manifest %s: %w", id, err)
	}
	if len(b) > maxManifest {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrInvalidManifest, id, maxManifest)
	}
	return decodeManifest(b, id)
}
