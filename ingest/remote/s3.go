package remote

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
)

// Object is one entry of an S3 listing.
type Object struct {
	Key  string `xml:"Key"`
	ETag string `xml:"ETag"`
	Size int64  `xml:"Size"`
}

// listResult is the ListObjectsV2 response body
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html).
type listResult struct {
	Contents       []Object `xml:"Contents"`
	CommonPrefixes []struct {
		Prefix string `xml:"Prefix"`
	} `xml:"CommonPrefixes"`
	IsTruncated           bool   `xml:"IsTruncated"`
	NextContinuationToken string `xml:"NextContinuationToken"`
}

// ListS3 lists a public bucket's keys under prefix with anonymous
// ListObjectsV2 requests on its HTTPS endpoint bucketBase. With a
// delimiter ("/"), the common prefixes (sub-folders) come back instead of
// the objects below them.
func ListS3(ctx context.Context, env *Env, bucketBase, prefix, delimiter string) (objs []Object, prefixes []string, err error) {
	token := ""
	for range 100_000 {
		q := url.Values{"list-type": {"2"}, "prefix": {prefix}}
		if delimiter != "" {
			q.Set("delimiter", delimiter)
		}
		if token != "" {
			q.Set("continuation-token", token)
		}
		b, err := env.Client.Bytes(ctx, bucketBase+"?"+q.Encode(), 64<<20)
		if err != nil {
			return nil, nil, err
		}
		var r listResult
		if err := xml.Unmarshal(b, &r); err != nil {
			return nil, nil, fmt.Errorf("%w: S3 listing of %s: %v", ErrUpstream, prefix, err)
		}
		objs = append(objs, r.Contents...)
		for _, p := range r.CommonPrefixes {
			prefixes = append(prefixes, p.Prefix)
		}
		if !r.IsTruncated || r.NextContinuationToken == "" {
			return objs, prefixes, nil
		}
		token = r.NextContinuationToken
	}
	return nil, nil, fmt.Errorf("%w: S3 listing of %s never ends", ErrUpstream, prefix)
}
