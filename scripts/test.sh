#!/usr/bin/env bash
# The whole test suite: formatting, lints, every crate's tests (including
# the interop tests against Erlang/OTP and tshark, which setup.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace

# --- Python package (python/) ----------------------------------------------
# A fresh virtual environment under target/, the package built from source
# and installed as a user would (pip install ./python), then its tests.
if python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    rm -rf target/py-venv
    python3 -m venv target/py-venv
    target/py-venv/bin/pip install --quiet --disable-pip-version-check ./python pytest
    target/py-venv/bin/python -m pytest -q python/tests
elif [ "${CI:-}" = true ]; then
    echo "test: python3 with venv is needed for the Python package's tests (scripts/setup.sh installs it)" >&2
    exit 1
else
    echo "test: python3 with venv not found: the Python package's tests did not run" >&2
fi
# ---------------------------------------------------------------------------
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
