#!/usr/bin/env bash
# Install livetable as services on a Raspberry Pi (Raspberry Pi OS / Debian), from a clone in
# /opt/livetable:
#   sudo git clone <this repository> /opt/livetable
#   sudo bash /opt/livetable/scripts/install-pi.sh
# Creates the `livetable` user, installs the virtualenv and the systemd units, copies the
# example config to /etc/livetable/table.toml (edit it), and enables the services.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-pi: run as root (sudo)" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
[ "$here" = /opt/livetable ] || { echo "install-pi: clone the repository to /opt/livetable first" >&2; exit 1; }
bash "$here/scripts/setup.sh"
getent group gpio >/dev/null || groupadd --system gpio
id livetable >/dev/null 2>&1 || useradd --system --home /var/lib/livetable --shell /usr/sbin/nologin livetable
usermod -a -G dialout,gpio,video,render,input livetable
install -d -o livetable -g livetable -m 0750 /var/lib/livetable /var/lib/livetable/hands
install -d -m 0755 /etc/livetable
[ -f /etc/livetable/table.toml ] || install -m 0644 "$here/config/table.example.toml" /etc/livetable/table.toml
install -m 0644 "$here"/systemd/*.service /etc/systemd/system/
systemctl daemon-reload
systemctl enable mosquitto.service
for unit in "$here"/systemd/*.service; do systemctl enable "$(basename "$unit")"; done
echo "install-pi: edit /etc/livetable/table.toml, then: systemctl start livetable.service"
