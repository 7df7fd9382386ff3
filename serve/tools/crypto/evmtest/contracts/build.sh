#!/usr/bin/env bash
# Regenerates artifacts.json (and the runtime code the tools place by state
# override: ../../internal/sell/sellcode_gen.go, ../../chain/lenscode_gen.go)
# from the .sol sources with solcjs (npm solc, pure JS/wasm; Debian has no solc). Only
# needed after editing a contract: the tests use the committed files.
set -euo pipefail
cd "$(dirname "$0")"
SOLC_DIR=${SOLC_DIR:-/tmp/solcjs}
[ -d "$SOLC_DIR/node_modules/solc" ] || npm install --prefix "$SOLC_DIR" --no-audit --no-fund --loglevel=error solc@0.8.37
NODE_PATH="$SOLC_DIR/node_modules" node build.js
NODE_PATH="$SOLC_DIR/node_modules" node build_trace.js
