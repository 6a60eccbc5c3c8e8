#!/usr/bin/env bash
# Installs, idempotently, everything Stampede needs, skipping what is already there:
# the wasm32 target, the wasm-bindgen CLI at the version Cargo.lock pins, wasm-pack,
# the npm packages (binaryen's wasm-opt first: wasm-pack would otherwise try to download
# it and fail), and Chromium with ChromeDriver from Debian's packages.
# Where it cannot install something (not root, no apt), it says what to install and stops.
# `scripts/setup.sh fuzz` (make fuzz) installs only what fuzzing needs: nightly and cargo-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
missing=()

# --- Rust -------------------------------------------------------------------------------------
if ! command -v cargo >/dev/null; then
  say "cargo is missing: install Rust with rustup (https://rustup.rs), then run make again."
  exit 1
fi

# --- `scripts/setup.sh fuzz` (make fuzz): nightly and cargo-fuzz only ----------------------
if [ "${1:-}" = fuzz ]; then
  if rustup toolchain list | grep -q '^nightly'; then
    say "nightly toolchain: present"
  else
    say "installing the nightly toolchain (cargo-fuzz needs it)"
    rustup toolchain install nightly --profile minimal
  fi
  if cargo fuzz --version >/dev/null 2>&1; then
    say "cargo-fuzz: present ($(cargo fuzz --version))"
  else
    say "installing cargo-fuzz (a few minutes)"
    cargo install cargo-fuzz --locked
  fi
  exit 0
fi

# --- Rust: the wasm target --------------------------------------------------------------
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "wasm32-unknown-unknown target: present"
else
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# --- wasm-bindgen CLI, exactly the version the workspace pins -----------------------------
want_wb=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml | head -n1)
have_wb=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have_wb" = "$want_wb" ]; then
  say "wasm-bindgen $want_wb: present"
else
  say "installing wasm-bindgen-cli $want_wb (a few minutes; was: ${have_wb:-none})"
  # --locked first; if a locked dependency was yanked, resolve afresh at the same version.
  cargo install wasm-bindgen-cli --version "$want_wb" --locked --force \
    || cargo install wasm-bindgen-cli --version "$want_wb" --force
fi

# --- wasm-pack ------------------------------------------------------------------------------
if command -v wasm-pack >/dev/null; then
  say "wasm-pack: present ($(wasm-pack --version))"
else
  say "installing wasm-pack (a few minutes)"
  cargo install wasm-pack --locked || cargo install wasm-pack
fi

# --- npm packages -----------------------------------------------------------------------------
if ! command -v npm >/dev/null; then
  missing+=("Node.js 20+ with npm 11 (Debian: apt-get install nodejs npm)")
else
  npm_sum() { { cat package.json; cat package-lock.json 2>/dev/null || true; } | sha256sum | cut -c1-16; }
  lock_sum=$(npm_sum)
  if [ -f node_modules/.stampede-setup ] && [ "$(cat node_modules/.stampede-setup)" = "$lock_sum" ]; then
    say "npm packages: present"
  else
    say "installing npm packages"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
    npm_sum > node_modules/.stampede-setup
  fi
  command -v wasm-opt >/dev/null && say "wasm-opt: $(wasm-opt --version)"
fi

# --- Chromium and ChromeDriver (browser tests) ------------------------------------------------
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  say "chromium and chromedriver: present"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  say "installing chromium and chromium-driver from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  missing+=("Chromium and ChromeDriver at /usr/bin (Debian: sudo apt-get install chromium chromium-driver)")
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "cannot install these here; install them, then run make again:"
  for m in "${missing[@]}"; do say "  - $m"; done
  exit 1
fi
say "done"
