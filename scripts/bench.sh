#!/usr/bin/env bash
# The main job: the codec comparison on the bundled corpus, ours beside
# Erlang/OTP's in the same run. Extra arguments go to `megaco bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --release --quiet -p megaco-cli -- bench "$@"
