#!/usr/bin/env bash
# Installs everything the build, the tests and the benchmarks need on a fresh
# Debian 12 machine with Go: Debian packages, Go modules and the npm clients
# used for interoperability tests. Safe to run again; it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt_install installs Debian packages. On a fresh machine another apt
# process (unattended-upgrades, cloud-init at boot) may hold apt's locks for
# minutes: apt-get install waits for the dpkg lock (DPkg::Lock::Timeout), and
# apt-get update, which does not apply that option to the package lists'
# lock, is tried again while that lock is held. Each waits at most
# apt_lock_wait seconds.
apt_lock_wait=600
apt_install() {
  local sudo="" waited=0 err
  [ "$(id -u)" = 0 ] || sudo=sudo
  until err=$($sudo apt-get -o DPkg::Lock::Timeout="$apt_lock_wait" update -qq 2>&1 >/dev/null); do
    case $err in
      *"Could not get lock"*)
        if [ "$waited" -lt "$apt_lock_wait" ]; then
          [ "$waited" -gt 0 ] || echo "setup: another apt process holds the package lists; waiting for it"
          sleep 5; waited=$((waited + 5)); continue
        fi ;;
    esac
    printf '%s\n' "$err" >&2
    return 1
  done
  [ -z "$err" ] || printf '%s\n' "$err" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$apt_lock_wait" \
    install -y -qq --no-install-recommends "$@" >/dev/null
}

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
  apt_install "${need_apt[@]}"
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
  if (cd interop && npm ls --all >/dev/null 2>&1); then
    echo "setup: npm interop clients already installed"
  else
    echo "setup: npm interop clients"
    (cd interop && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# Offline place and reference data for serve/tools/place and serve/tools/data
# (cities, countries, regions, IP ranges, time zones): npm packages pinned in
# datasets/package-lock.json, installed without their scripts, never fetched
# at run time. Licences and attribution: datasets/ATTRIBUTION.md. Skipped
# when the installed tree already matches the lock file.
if [ -f datasets/package.json ]; then
  if (cd datasets && npm ls --all >/dev/null 2>&1); then
    echo "setup: datasets already installed"
  else
    echo "setup: datasets (npm, ~70 MB download)"
    (cd datasets && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
fi
# Token lists the crypto tools resolve symbols from (BTC, LINK, UNI, ...):
# the Uniswap Labs default token list, pinned in tokenlists/package-lock.json,
# installed without scripts, read from disk, never fetched at run time.
if [ -f tokenlists/package.json ]; then
  if (cd tokenlists && npm ls --all >/dev/null 2>&1); then
    echo "setup: token lists already installed"
  else
    echo "setup: token lists (npm, ~1 MB download)"
    (cd tokenlists && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
fi
# embed_text (serve/tools/knowledge/embed): the ONNX Runtime CPU library,
# taken from the npm package onnxruntime-node (MIT; Debian 12 has no
# onnxruntime). 1.24.1 matches the C API headers of
# github.com/yalue/onnxruntime_go v1.27.0. Installed where the embed
# package looks by default (--ort-library changes it); its tests need it.
ORT_VERSION=1.24.1
ORT_DIR=/usr/local/lib/openshelf
if [ ! -f "$ORT_DIR/libonnxruntime.so.$ORT_VERSION" ]; then
  echo "setup: ONNX Runtime $ORT_VERSION from npm onnxruntime-node"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack "onnxruntime-node@$ORT_VERSION" --silent >/dev/null &&
    tar xzf "onnxruntime-node-$ORT_VERSION.tgz" package/bin/napi-v6/linux/x64/libonnxruntime.so.1)
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO mkdir -p "$ORT_DIR"
  $SUDO install -m 0644 "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$ORT_DIR/libonnxruntime.so.$ORT_VERSION"
  $SUDO ln -sf "libonnxruntime.so.$ORT_VERSION" "$ORT_DIR/libonnxruntime.so"
  rm -rf "$tmp"
fi
# Browser tools (serve/tools/browser): Chromium renders pages and PDFs;
# fonts give PDFs and screenshots real glyphs; pandoc and poppler-utils
# (pdftotext, pdfinfo) read rendered DOCX and PDF files back in the tests;
# unzip reads document.xml out of a DOCX in one test. Idempotent: only
# missing packages are installed.
browser_need=()
for pair in chromium:chromium pandoc:pandoc pdftotext:poppler-utils unzip:unzip fc-list:fontconfig; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || browser_need+=("${pair#*:}")
done
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || browser_need+=(fonts-dejavu-core)
if [ ${#browser_need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages for the browser tools: ${browser_need[*]}"
  apt_install "${browser_need[@]}"
fi

# site_audit's accessibility engine and the audit its tests compare with:
# axe-core (MPL-2.0; read from disk and run in audited pages, never fetched
# at run time) and Lighthouse (Apache-2.0; tests only), pinned in
# webaudit/package-lock.json, installed without their scripts. Skipped
# when both are installed at the pinned versions (npm ls --all would
# always fail here: a Lighthouse dependency asks for "latest" of two
# packages, which the lock file pins).
if [ -f webaudit/package.json ]; then
  if (cd webaudit && npm ls --depth=0 >/dev/null 2>&1); then
    echo "setup: webaudit (axe-core, lighthouse) already installed"
  else
    echo "setup: webaudit (axe-core, lighthouse)"
    (cd webaudit && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
fi

# Search benchmark (bench/, issue #21): Apache Lucene from Debian
# (liblucene8-java: lucene-core, -queryparser, -analyzers-common, -facet
# jars under /usr/share/java) driven by bench/lucene/LuceneBench.java,
# compiled with the JDK's javac at run time (default-jdk-headless when no
# javac is installed). Idempotent: installs only what is missing.
lucene_need=()
ls /usr/share/java/lucene-core-*.jar >/dev/null 2>&1 || lucene_need+=(liblucene8-java)
command -v javac >/dev/null 2>&1 || lucene_need+=(default-jdk-headless)
if [ ${#lucene_need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages for the search benchmark: ${lucene_need[*]}"
  apt_install "${lucene_need[@]}"
fi

echo "setup: done"
