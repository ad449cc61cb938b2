#!/usr/bin/env bash
# Set up everything livetable needs on a fresh Debian / Raspberry Pi OS machine:
# Debian packages (when missing), a virtualenv in .venv with the project installed,
# and a Mosquitto broker answering on 127.0.0.1:1883; with --test or --room also PostgreSQL
# answering on 127.0.0.1:5432 (the room service's store, issue 17) with a `livetable` role.
#   bash scripts/setup.sh          # the product
#   bash scripts/setup.sh --test   # the product and the test tools
#   bash scripts/setup.sh --room   # the product and PostgreSQL for the room service
#   bash scripts/setup.sh --bench  # the product, the benches' Python peers (the test extras:
#                                  # phevaluator, PokerKit) and libmosquitto-dev, which
#                                  # bench/bench_mqtt.py's native anchor (bench/native/mqtt_rtt.c)
#                                  # is built against at bench time; not needed by the tests
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=0
want_pg=0
want_bench=0
[ "${1:-}" = "--test" ] && want_test=1 && want_pg=1
[ "${1:-}" = "--room" ] && want_pg=1
[ "${1:-}" = "--bench" ] && want_bench=1

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
if [ $want_pg = 1 ]; then
  command -v pg_ctlcluster >/dev/null || need+=(postgresql)
fi
if [ $want_bench = 1 ]; then
  [ -f /usr/include/mosquitto.h ] || need+=(libmosquitto-dev)
fi
if [ ${#need[@]} -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- Python virtualenv -----------------------------------------------------------
PY=${PYTHON:-python3}
if [ -d .venv ] && ! .venv/bin/python -c 'import pip' >/dev/null 2>&1; then
  log ".venv is broken (its Python or its pip is gone, e.g. a set-up stopped half-way): making it again"
  rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PY" -m venv .venv
fi
extras=""
[ $want_test = 1 ] || [ $want_bench = 1 ] && extras="[test]"
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

# --- PostgreSQL on 127.0.0.1:5432 (the room service's store; --test and --room) --------
port_up() { .venv/bin/python - "$1" <<'PY'
import socket, sys
s = socket.socket(); s.settimeout(1)
sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)
PY
}
if [ $want_pg = 1 ]; then
  if ! port_up 5432; then
    log "no PostgreSQL on 127.0.0.1:5432: starting Debian's cluster"
    ver=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
    [ -n "$ver" ] || { log "PostgreSQL is not installed (apt-get install postgresql)"; exit 1; }
    if ! pg_lsclusters -h 2>/dev/null | grep -q .; then
      as_root pg_createcluster "$ver" main >/dev/null
    fi
    cluster=$(pg_lsclusters -h | awk '{print $1" "$2}' | head -1)
    # shellcheck disable=SC2086
    as_root pg_ctlcluster $cluster start || true
    for _ in $(seq 1 100); do port_up 5432 && break; sleep 0.1; done
    port_up 5432 || { log "could not start PostgreSQL on 127.0.0.1:5432"; exit 1; }
  fi
  # The room's tests and `livetable room simulate --store postgresql://...` log in as
  # livetable/livetable (password auth works with Debian's default pg_hba.conf); they make
  # their own databases (room_test_<random>), so the role may create databases.
  if command -v runuser >/dev/null && id postgres >/dev/null 2>&1; then
    as_root runuser -u postgres -- psql -qAt -h 127.0.0.1 -d postgres -c \
      "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'livetable') THEN
         CREATE ROLE livetable LOGIN CREATEDB PASSWORD 'livetable'; END IF; END \$\$;" >/dev/null 2>&1 ||
    as_root runuser -u postgres -- psql -qAt -d postgres -c \
      "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'livetable') THEN
         CREATE ROLE livetable LOGIN CREATEDB PASSWORD 'livetable'; END IF; END \$\$;" >/dev/null ||
    log "could not make the livetable role in PostgreSQL (the room's PostgreSQL tests will skip)"
  fi
fi
