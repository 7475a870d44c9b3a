#!/usr/bin/env bash
# Installs what geo-reports needs on Debian/Ubuntu: Chromium (to print PDFs), fonts (Latin and CJK),
# poppler-utils (PDF checks in the tests), then the npm packages. Safe to run again: what is there already is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
  || [ -n "${PUPPETEER_EXECUTABLE_PATH:-}" ] || missing+=(chromium)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
fc-list 2>/dev/null | grep -qi dejavu || missing+=(fonts-dejavu-core)
# Client names in Chinese, Japanese or Korean would print as empty boxes without a CJK font.
fc-list 2>/dev/null | grep -qi "noto sans cjk" || missing+=(fonts-noto-cjk)

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "Run as root or install sudo, or install: ${missing[*]}" >&2; exit 1; }
    as_root=(sudo)
  fi
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Puppeteer's own browser download cannot be used: the system Chromium is found at run time.
export PUPPETEER_SKIP_DOWNLOAD=1
npm ci --no-audit --no-fund
