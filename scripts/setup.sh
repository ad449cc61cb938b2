#!/usr/bin/env bash
# Set up everything livetable needs on a fresh Debian / Raspberry Pi OS machine:
# Debian packages (when missing), a virtualenv in .venv with the project installed,
# and a Mosquitto broker answering on 127.0.0.1:1883.
#   bash scripts/setup.sh          # the product
#   bash scripts/setup.sh --test   # the product and the test tools
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=0
[ "${1:-}" = "--test" ] && want_test=1

log() { printf 'setup: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root for: $*"; return 1; fi
}

# --- Debian packages -------------------------------------------------------------
need=()
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
command -v mosquitto >/dev/null || need+=(mosquitto)
command -v mosquitto_passwd >/dev/null || need+=(mosquitto)
command -v gcc >/dev/null || need+=(gcc)
# Python's headers: pip install builds controller/engine/_equity_c.c (exact equity in C)
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  || need+=(python3-dev)
if [ $want_test = 1 ]; then
  command -v systemd-analyze >/dev/null || need+=(systemd)
  # The seat tablet's tests: its pure logic under node's test runner, the pages in Chromium.
  command -v node >/dev/null || need+=(nodejs)
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
fi
if [ ${#need[@]} -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- Python virtualenv -----------------------------------------------------------
PY=${PYTHON:-python3}
if [ -d .venv ] && ! .venv/bin/python -c 'import sys' >/dev/null 2>&1; then
  log ".venv is broken (its Python is gone): making it again"
  rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PY" -m venv .venv
fi
extras=""
[ $want_test = 1 ] && extras="[test]"
stamp=".venv/.installed${extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
   || [ controller/engine/_equity_c.c -nt "$stamp" ]; then
  log "installing livetable${extras} into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".${extras}"
  touch "$stamp"
fi
.venv/bin/python -c 'import controller.engine._equity_c' 2>/dev/null \
  || log "warning: the compiled equity module was not built (gcc, python3-dev?); equity uses numpy"

# --- the tablet tests' npm tools (axe-core: contrast and labels) -------------------
if [ $want_test = 1 ] && command -v npm >/dev/null; then
  npm_stamp="tests/tablet/node_modules/.installed"
  if [ ! -f "$npm_stamp" ] || [ tests/tablet/package-lock.json -nt "$npm_stamp" ]; then
    log "installing the tablet tests' npm tools (tests/tablet/package-lock.json)"
    npm ci --prefix tests/tablet --no-audit --no-fund --silent && touch "$npm_stamp"
  fi
fi

# --- Mosquitto on 127.0.0.1:1883 ---------------------------------------------------
broker_up() { .venv/bin/python - <<'PY'
import socket, sys
s = socket.socket(); s.settimeout(1)
sys.exit(0 if s.connect_ex(("127.0.0.1", 1883)) == 0 else 1)
PY
}
if ! broker_up; then
  log "no broker on 127.0.0.1:1883: starting mosquitto"
  if [ -f /etc/mosquitto/mosquitto.conf ]; then
    mosquitto -d -c /etc/mosquitto/mosquitto.conf || true
  fi
  for _ in $(seq 1 50); do broker_up && break; sleep 0.1; done
  if ! broker_up; then
    mosquitto -d -p 1883 || true
    for _ in $(seq 1 50); do broker_up && break; sleep 0.1; done
  fi
  broker_up || { log "could not start mosquitto on 127.0.0.1:1883"; exit 1; }
fi
