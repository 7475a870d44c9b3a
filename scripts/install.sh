#!/usr/bin/env bash
# Installs what geo-reports needs on Debian/Ubuntu: Chromium's headless shell (prints the PDFs) and the full
# Chromium (fallback, and the benchmark's reference), fonts (Latin and CJK),
# poppler-utils (PDF checks in the tests), qpdf (PDFs encrypted with a password), then the npm packages. Safe to run again: what is there already is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
# Wanted when the distribution has it (Debian 12 and later); printing falls back to the full browser otherwise.
optional=()
if [ -z "${PUPPETEER_EXECUTABLE_PATH:-}" ]; then
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
  command -v chromium-headless-shell >/dev/null 2>&1 || [ -x /usr/lib/chromium/chromium-headless-shell ] \
    || optional+=(chromium-headless-shell)
fi
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
# report.pdf.encryptWithEnv encrypts each PDF with qpdf (AES-256); the tests check it too.
command -v qpdf >/dev/null 2>&1 || missing+=(qpdf)
# The font families read whole, then matched: `fc-list | grep -q` under pipefail fails at random (grep stops at the
# first match, fc-list dies of SIGPIPE, exit 141) and the fonts look missing.
fonts="$(fc-list : family 2>/dev/null || true)"
fonts="${fonts,,}"
[[ $fonts == *dejavu* ]] || missing+=(fonts-dejavu-core)
# Client names in Chinese, Japanese or Korean would print as empty boxes without a CJK font.
[[ $fonts == *"noto sans cjk"* ]] || missing+=(fonts-noto-cjk)

if [ $((${#missing[@]} + ${#optional[@]})) -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "Run as root or install sudo, or install: ${missing[*]} ${optional[*]}" >&2; exit 1; }
    as_root=(sudo)
  fi
  "${as_root[@]}" apt-get update -qq
  for package in ${optional[@]+"${optional[@]}"}; do
    if apt-cache show "$package" >/dev/null 2>&1; then
      missing+=("$package")
    else
      echo "No $package package here: PDFs will be printed with the full Chromium (slower)."
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing Debian packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# Puppeteer's own browser download is not used: the system headless shell (or Chromium) is found at run time.
export PUPPETEER_SKIP_DOWNLOAD=1
npm ci --no-audit --no-fund
