#!/usr/bin/env bash
# Sets up a fresh machine, ingests the fixture corpus into ./data and serves
# it on http://127.0.0.1:8080 (override with ADDR=host:port).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p bin
go build -o bin/openshelf ./cmd/openshelf
./bin/openshelf ingest --data data --pipeline pipelines/fixtures.toml
exec ./bin/openshelf serve --data data --addr "${ADDR:-127.0.0.1:8080}" "$@"
