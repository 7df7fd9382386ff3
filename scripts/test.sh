#!/usr/bin/env bash
# Sets up a fresh machine and runs every check and test. CI calls this
# (.ci/run). Extra arguments go to both go test runs (-run X, -v, ...).
#
#   gofmt               every Go file is formatted
#   go mod tidy -diff   go.mod and go.sum state exactly what the code needs
#   go vet, staticcheck the code is clean
#   go test             every package, fuzz targets on their seed corpora;
#                       the packages where concurrency lives (payments,
#                       alarms, the guarded client, snapshot switching, the
#                       server) under the race detector
#
# The report ends with "N passed, N failed, N skipped" and lists each skip
# with its reason: no test skips for lack of an environment variable.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$(go env GOPATH)/bin:$PATH"

echo "test: gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt: not formatted:"; echo "$unformatted"; exit 1; fi
echo "test: go mod tidy -diff"
go mod tidy -diff
echo "test: go vet"
go vet ./...
echo "test: staticcheck"
staticcheck ./...

race=(./serve ./serve/x402/... ./serve/alarm/... ./serve/fetch/... ./serve/archive/... ./serve/mcp/...)
mapfile -t plain < <(go list ./... | grep -vxF -f <(go list "${race[@]}"))
echo "test: go test (${#plain[@]} packages) and go test -race (${#race[@]} patterns)"
go build -o "${TMPDIR:-/tmp}/openshelf-testreport" ./scripts/testreport
# -vet=off: go vet ./... above ran every analyzer go test would run (a
# subset of vet's defaults) over the same packages and their tests.
rc=$(mktemp)
{
  go test -json -vet=off -p 2 -timeout 40m -count=1 "${plain[@]}" "$@" || echo "go test exited $?" >>"$rc"
  go test -json -vet=off -race -p 2 -timeout 40m -count=1 "${race[@]}" "$@" || echo "go test -race exited $?" >>"$rc"
} | "${TMPDIR:-/tmp}/openshelf-testreport"
# testreport fails on any failed test or package; this catches a go
# command that failed without reporting one (a bad flag, say).
if [ -s "$rc" ]; then cat "$rc"; exit 1; fi
