#!/usr/bin/env bash
# The main job: the codec comparison on the bundled corpus, ours beside
# Erlang/OTP's in the same run. Extra arguments go to `megaco bench`.
# MEGACO_PGO=1 runs it in the profile-guided build (scripts/pgo.sh, a few
# minutes more to build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${MEGACO_PGO:-}" = 1 ]; then
    megaco=$(MEGACO_PGO_QUIET=1 scripts/pgo.sh)
    "$megaco" bench "$@"
else
    cargo run --release --quiet -p megaco-cli -- bench "$@"
fi
