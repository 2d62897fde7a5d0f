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

# The Python package (python/): a fresh virtual environment under target/,
# the package built from source and installed as a user would
# (pip install ./python), then its tests.
python_tests() {
    if python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        rm -rf target/py-venv
        python3 -m venv target/py-venv
        target/py-venv/bin/pip install --quiet --disable-pip-version-check ./python pytest
        target/py-venv/bin/python -m pytest -q python/tests
    elif [ "${CI:-}" = true ]; then
        echo "test: python3 with venv is needed for the Python package's tests (scripts/setup.sh installs it)" >&2
        return 1
    else
        echo "test: python3 with venv not found: the Python package's tests did not run" >&2
    fi
}

step cargo fmt --all -- --check
step cargo clippy --workspace --all-targets --quiet -- -D warnings
step scripts/msrv.py
step cargo test --workspace
step python_tests
step doc
# Each published crate packages with everything it needs inside it, and
# builds from its package alone.
#
# cargo verifies a crate against its sibling crates' fresh packages, which
# it unpacks under $CARGO_HOME/registry/src/-<hash of the target dir>/ and
# never unpacks again while that directory exists: a checkout at the same
# path as an earlier run would build against the earlier run's sources
# (same version number, older code). Those unpacked copies of our own
# crates go first.
package() {
    local home=${CARGO_HOME:-$HOME/.cargo} version
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
    for crate in crates/*/; do
        rm -rf "$home"/registry/src/-*/"$(basename "$crate")-$version"
    done
    cargo package --workspace --exclude megaco-readme --allow-dirty --quiet
}
step package
echo "scripts/test.sh: all passed in $((SECONDS - start)) s" >&2
