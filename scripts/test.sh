#!/usr/bin/env bash
# The whole test suite: formatting, lints, every crate's tests (including
# the interop tests against Erlang/OTP and tshark, which setup.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
