#!/bin/sh
# Install what fusim needs to build and test on Debian 12 (or Ubuntu): compiler, meson, GSL,
# SQLite, Jansson, gnuplot for plots, Open MPI for the multi-node path, time (/usr/bin/time, for
# tools/light_chroot.sh). Skips what is present.
set -eu
need=""
for pkg in build-essential meson ninja-build pkg-config libgsl-dev libsqlite3-dev libjansson-dev \
           sqlite3 gnuplot-nox python3 libopenmpi-dev openmpi-bin time; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
if [ -n "$need" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "fusim setup: installing$need" >&2
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $need >/dev/null
fi
