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

if [ -f interop/package.json ]; then
  echo "setup: npm interop clients"
  (cd interop && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi)
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
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${browser_need[@]}" >/dev/null
fi

echo "setup: done"
