#!/usr/bin/env bash
# Sets up a fresh machine and runs every test. CI calls this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CI="${CI:-}"
go vet ./...
# -p 2: the machine has two cores; heavier packages run one at a time within.
go test -p 2 -timeout 40m -count=1 ./... "$@"
