#!/usr/bin/env bash
# The whole test suite (what CI runs): formatting, lints, the declared
# minimum Rust version, every crate's tests (including the interop tests
# against Erlang/OTP and tshark, which setup.sh installs, and the README's
# examples and command lines), warning-free docs, and packaging.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

start=$SECONDS
step() {
    local t=$SECONDS
    echo "== $*" >&2
    "$@"
    echo "== $1 ${2:-}: $((SECONDS - t)) s" >&2
}

# cargo doc must print no warning: rustdoc's (denied) and cargo's own (an
# output collision, for one).
doc() {
    local log
    log=$(mktemp)
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet 2>&1 | tee "$log" >&2
    if grep -q "warning" "$log"; then
        echo "cargo doc printed warnings" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

step cargo fmt --all -- --check
step cargo clippy --workspace --all-targets --quiet -- -D warnings
step scripts/msrv.py
step cargo test --workspace
step doc
# Each published crate packages with everything it needs inside it, and
# builds from its package alone.
step cargo package --workspace --exclude megaco-readme --allow-dirty --quiet
echo "scripts/test.sh: all passed in $((SECONDS - start)) s" >&2
