package remote

import (
	"testing"

	"github.com/openshelf/openshelf/pipelines"
)

func TestBases(t *testing.T) {
	tests := []struct {
		url, mirror      string
		wantBucket, want string
	}{
		{"s3://pmc-oa-opendata/", "", "https://pmc-oa-opendata.s3.amazonaws.com/", "https://pmc-oa-opendata.s3.amazonaws.com/"},
		{"s3://openalex/data/works/", "", "https://openalex.s3.amazonaws.com/", "https://openalex.s3.amazonaws.com/data/works/"},
		{"s3://openalex/data/works", "http://127.0.0.1:9/openalex", "http://127.0.0.1:9/openalex/", "http://127.0.0.1:9/openalex/data/works/"},
		{"https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles", "", "https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/", "https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/"},
	}
	for _, tc := range tests {
		env := &Env{Source: pipelines.Source{URL: tc.url, Params: map[string]string{"https_mirror": tc.mirror}}}
		if got := BucketBase(env); got != tc.wantBucket {
			t.Errorf("BucketBase(%s) = %s, want %s", tc.url, got, tc.wantBucket)
		}
		if got := HTTPSBase(env); got != tc.want {
			t.Errorf("HTTPSBase(%s) = %s, want %s", tc.url, got, tc.want)
		}
	}
	if k := S3Key("s3://pmc-oa-opendata/PMC1.1/PMC1.1.xml?md5=abc"); k != "PMC1.1/PMC1.1.xml" {
		t.Errorf("S3Key = %q", k)
	}
}

func TestMatch(t *testing.T) {
	src := &pipelines.Source{Include: []string{"metadata/PMC*.json"}, Exclude: []string{"*/PMC9*"}}
	tests := []struct {
		key  string
		want bool
	}{
		{"metadata/PMC123.1.json", true},
		{"metadata/PMC923.1.json", false},
		{"PMC123.1/PMC123.1.json", false},
		{"metadata/PMC123.1.xml", false},
	}
	for _, tc := range tests {
		if got := Match(src, tc.key); got != tc.want {
			t.Errorf("Match(%s) = %v, want %v", tc.key, got, tc.want)
		}
	}
	if !Match(&pipelines.Source{}, "pubmed26n0001.xml.gz", "pubmed*n*.xml.gz") || Match(&pipelines.Source{}, "README.txt", "pubmed*n*.xml.gz") {
		t.Error("default include not applied")
	}
}
