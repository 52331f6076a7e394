#!/bin/sh
# Configure (once) and build fusim into ./build. Warnings stay warnings here: a user's build must
# not fail on a newer compiler's new warning; CI (.ci/run) builds with -Dwerror=true.
# Extra arguments go to the first `meson setup` (e.g. tools/build.sh --buildtype=release).
# Quiet when all goes well; meson's or the compiler's messages when not (both print on stdout).
set -eu
cd "$(dirname "$0")/.."
log=$(mktemp /tmp/fusim-build.XXXXXX)
trap 'rm -f "$log"' EXIT
if [ ! -f build/build.ninja ]; then
  meson setup build "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "tools/build.sh: meson setup failed" >&2; exit 1; }
fi
ninja -C build >"$log" 2>&1 || { cat "$log" >&2; echo "tools/build.sh: the build failed" >&2; exit 1; }
