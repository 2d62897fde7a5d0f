#!/usr/bin/env bash
# Installs what the build, the tests and the OTP comparison need on a fresh
# Debian machine: Erlang/OTP with megaco (the reference peer and benchmark
# baseline), tshark (the independent BER dissector), python3, `script` and a
# font for the charts. Rust comes from rustup; crates come from the Rust
# package registry through cargo.
set -euo pipefail

need=()
command -v erl >/dev/null 2>&1 || need+=(erlang-base erlang-megaco erlang-asn1)
if command -v erl >/dev/null 2>&1 &&
    ! erl -noshell -eval 'case code:which(megaco_ber_encoder) of non_existing -> halt(1); _ -> halt(0) end.' >/dev/null 2>&1; then
    need+=(erlang-megaco erlang-asn1)
fi
command -v tshark >/dev/null 2>&1 || need+=(tshark)
# scripts/msrv.py
command -v python3 >/dev/null 2>&1 || need+=(python3)
# the CLI's terminal tests run under `script`
command -v script >/dev/null 2>&1 || need+=(bsdutils)
# text in the benchmark charts
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# the Python package's tests (a virtual environment)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3 python3-venv)

if ((${#need[@]})); then
    echo "setup: installing ${need[*]}" >&2
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust with rustup (https://rustup.rs)" >&2
    exit 1
fi
