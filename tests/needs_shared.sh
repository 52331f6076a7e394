#!/bin/sh
# needs_shared.sh TEST [ARGS...]: run TEST, which reads the shared data folder ($FUSIM_SHARED,
# tests/meson.build's test_env). Where that folder is missing (only the repository travels to the
# GPU machine) the test is reported as skipped (exit 77) instead of failing.
if [ -z "$FUSIM_SHARED" ] || [ ! -d "$FUSIM_SHARED/data" ]; then
  echo "SKIP: shared data folder '${FUSIM_SHARED:-(FUSIM_SHARED unset)}' is missing; $1 needs it" >&2
  exit 77
fi
exec "$@"
