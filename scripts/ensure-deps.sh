#!/usr/bin/env bash
# Installs npm packages on a fresh clone, or when package-lock.json changed since the last install, so the README's
# first commands work without a separate set-up step. Runs from npm's pre-scripts with whatever node is on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "compositor: installing npm packages (npm ci)" >&2
  npm ci --no-audit --no-fund >&2
fi
