#!/bin/sh
# Configure (once) and build fusim into ./build. Warnings stay warnings here: a user's build must
# not fail on a newer compiler's new warning; CI (.ci/run) builds with -Dwerror=true.
# Extra arguments go to the first `meson setup` (e.g. tools/build.sh --buildtype=release).
set -eu
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build "$@" >/dev/null
ninja -C build >/dev/null
