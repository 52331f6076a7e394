#!/bin/sh
# Configure (once) and build fusim into ./build with warnings as errors.
set -eu
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null
ninja -C build >/dev/null
