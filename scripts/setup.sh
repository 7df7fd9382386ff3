#!/usr/bin/env bash
# Installs everything the build, the tests and the benchmarks need on a fresh
# Debian 12 machine with Go: Debian packages, Go modules and the npm clients
# used for interoperability tests. Safe to run again; it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pair in chromium:chromium postgresql:/usr/lib/postgresql nginx:nginx; do
  probe=${pair%%:*} pkg=${pair#*:}
  case $pkg in
    /*) [ -d "$pkg" ] || need_apt+=(postgresql) ;;
    *) command -v "$probe" >/dev/null 2>&1 || need_apt+=("$pkg") ;;
  esac
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

echo "setup: Go modules"
go mod download

# staticcheck, pinned: scripts/test.sh runs it.
staticcheck_version=v0.8.2
if ! "$(go env GOPATH)/bin/staticcheck" -version 2>/dev/null | grep -q "(${staticcheck_version#v})"; then
  echo "setup: staticcheck $staticcheck_version"
  go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi

if [ -f interop/package.json ]; then
  echo "setup: npm interop clients"
  (cd interop && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi)
fi
echo "setup: done"
