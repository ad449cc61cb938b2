#!/usr/bin/env bash
# Install livetable as services on a Raspberry Pi (Raspberry Pi OS / Debian), from a clone in
# /opt/livetable:
#   sudo git clone <this repository> /opt/livetable
#   sudo bash /opt/livetable/scripts/install-pi.sh
# Creates the `livetable` user, installs the virtualenv (the project's bytecode compiled) and
# the systemd units, copies the example config to /etc/livetable/table.toml (edit it), and
# enables the services.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-pi: run as root (sudo)" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
[ "$here" = /opt/livetable ] || { echo "install-pi: clone the repository to /opt/livetable first" >&2; exit 1; }
bash "$here/scripts/setup.sh"
# The project's bytecode, compiled here as root: the services run as `livetable` with
# ProtectSystem=strict (/opt read-only), so Python cannot write its __pycache__ and would
# compile every module of ours from source at every start (READY at 1k hands 0.78 s
# instead of 0.50 s on a loaded 2-core x86, issue 21). The virtualenv's packages are
# compiled by pip. Run this script again after updating the clone (a module changed since
# is compiled at each start until then, correct but slower).
"$here/.venv/bin/python" -m compileall -q -j 0 "$here/controller" "$here/drivers" "$here/display" \
  "$here/vision" "$here/room"
getent group gpio >/dev/null || groupadd --system gpio
id livetable >/dev/null 2>&1 || useradd --system --home /var/lib/livetable --shell /usr/sbin/nologin livetable
usermod -a -G dialout,gpio,video,render,input livetable
# The journal, its -wal and the hand files hold hole cards: folders 0750 (the unit's
# StateDirectoryMode), files 0640 (its UMask=0027), also for files an older install left.
install -d -o livetable -g livetable -m 0750 /var/lib/livetable /var/lib/livetable/hands
find /var/lib/livetable -path /var/lib/livetable/mosquitto -prune -o -type d -exec chmod g-w,o-rwx {} + \
  -o -type f -exec chmod u-x,g-wx,o-rwx {} +
install -d -m 0755 /etc/livetable
[ -f /etc/livetable/table.toml ] || install -m 0644 "$here/config/table.example.toml" /etc/livetable/table.toml
# The broker: the repo's Mosquitto config with per-seat users and ACLs (docs/mqtt.md).
table=$("$here/.venv/bin/python" -c 'import sys,tomllib; d=tomllib.load(open(sys.argv[1],"rb")); print(d.get("table",{}).get("id","t1"), d.get("table",{}).get("seats",5 if d.get("table",{}).get("game")=="draw" else 10))' /etc/livetable/table.toml)
set -- $table
"$here/.venv/bin/livetable" tablets provision --table "$1" --seats "$2" --dir /etc/livetable/mosquitto
"$here/.venv/bin/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["controller"]["password"])' \
  "/etc/livetable/mosquitto/credentials/$1.json" > /etc/livetable/mqtt-password
chgrp livetable /etc/livetable/mqtt-password && chmod 0640 /etc/livetable/mqtt-password
chgrp -R mosquitto /etc/livetable/mosquitto 2>/dev/null || true
# The display logs in as the read-only `display` user; `livetable floor` as `floor` (same file).
chgrp livetable /etc/livetable/mosquitto/credentials /etc/livetable/mosquitto/credentials/_shared.json
chmod 0750 /etc/livetable/mosquitto/credentials && chmod 0640 /etc/livetable/mosquitto/credentials/_shared.json
[ -f /etc/livetable/display.env ] || echo 'LIVETABLE_DISPLAY_ARGS=--credentials /etc/livetable/mosquitto/credentials/_shared.json' > /etc/livetable/display.env
# The broker's store (retained private views: hole cards) in its own folder, mosquitto's only
# (mosquitto/livetable.conf persistence_location); an older install kept it in ours.
install -d -o mosquitto -g mosquitto -m 0750 /var/lib/mosquitto
if [ -d /var/lib/livetable/mosquitto ]; then
  systemctl stop mosquitto.service || true   # its store is final before it moves
  [ -e /var/lib/mosquitto/mosquitto.db ] || [ ! -e /var/lib/livetable/mosquitto/mosquitto.db ] ||
    mv /var/lib/livetable/mosquitto/mosquitto.db /var/lib/mosquitto/mosquitto.db
  rm -rf /var/lib/livetable/mosquitto
fi
install -d /etc/systemd/system/mosquitto.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/sbin/mosquitto -c %s/mosquitto/livetable.conf\n' "$here" \
  > /etc/systemd/system/mosquitto.service.d/livetable.conf
install -m 0644 "$here"/systemd/*.service /etc/systemd/system/
systemctl daemon-reload
systemctl enable mosquitto.service
for unit in "$here"/systemd/*.service; do systemctl enable "$(basename "$unit")"; done
systemctl restart mosquitto.service
echo "install-pi: edit /etc/livetable/table.toml (set [mqtt] username = \"controller\" and"
echo "  password_file = \"/etc/livetable/mqtt-password\"), then: systemctl start livetable.service"
echo "  Seat tablet logins: livetable tablets provision --table $1 --seats $2 --show"
echo "  Floor decisions: livetable floor status (root or group livetable; docs/faults.md)"
