#!/usr/bin/env bash
# Builds the `megaco` command with profile-guided optimisation and prints
# the path of the binary (target/pgo/release/megaco).
#
# 1. an instrumented build (target/pgo-gen), which records where its code
#    branches and what it calls;
# 2. a training run of that build: the codec benchmark on the bundled
#    corpus (every codec config: encode, decode, the borrowed views) and a
#    few seconds of `megaco load` against `megaco mgc` on loopback (the
#    transaction stack over UDP, text and BER);
# 3. the release build again, laid out by that profile (target/pgo).
#
# The profile changes how the code is arranged, never what it does: the
# same tests pass on either build. In `cargo bench -p megaco --bench
# floor` the decoders took 19-29 % less time a message with the profile,
# also on corpus messages left out of the training run (README,
# "Profile-guided build").
#
# Needs rustup's llvm-tools component (for llvm-profdata); the script adds
# it when it is missing. MEGACO_PGO_QUIET=1 keeps cargo's output short.
#
# scripts/pgo.sh --check instead checks that the gain is not the training
# set learnt by heart: it trains `cargo bench -p megaco --bench floor` on
# every other corpus message (`--half even`), then times the plain and the
# profile-guided build of that bench on the others (`--half odd`), twice
# each, in turns, and prints their tables (about 10 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    echo "pgo: adding rustup's llvm-tools (llvm-profdata)" >&2
    rustup component add llvm-tools >&2
fi
if [ ! -x "$profdata" ]; then
    echo "pgo: $profdata not found; install rustup's llvm-tools component" >&2
    exit 1
fi

quiet=()
[ "${MEGACO_PGO_QUIET:-}" = 1 ] && quiet=(--quiet)

if [ "${1:-}" = --check ]; then
    data="$root/target/pgo-check-data"
    rm -rf "$data"
    mkdir -p "$data"
    bench=(cargo bench --locked "${quiet[@]}" -p megaco --bench floor)
    echo "pgo --check: 1/3 instrumented bench, trained on the even messages" >&2
    CARGO_TARGET_DIR="$root/target/pgo-check-gen" RUSTFLAGS="-Cprofile-generate=$data" \
        "${bench[@]}" -- --half even --passes 3 >/dev/null
    "$profdata" merge -o "$data/floor.profdata" "$data"/*.profraw
    guided=(env CARGO_TARGET_DIR="$root/target/pgo-check"
        RUSTFLAGS="-Cprofile-use=$data/floor.profdata" "${bench[@]}")
    echo "pgo --check: 2/3 plain and profile-guided builds of the bench" >&2
    "${bench[@]}" --no-run >&2
    "${guided[@]}" --no-run >&2
    echo "pgo --check: 3/3 both timed on the odd messages, in turns" >&2
    for round in 1 2; do
        echo "== round $round: release build"
        "${bench[@]}" -- --half odd --passes 20
        echo "== round $round: profile-guided build (trained on the even messages)"
        "${guided[@]}" -- --half odd --passes 20
    done
    exit 0
fi

data="$root/target/pgo-data"
rm -rf "$data"
mkdir -p "$data"

echo "pgo: 1/3 instrumented build (target/pgo-gen)" >&2
# MEGACO_BUILD=pgo in both builds, so that they compile the same code
# (it names the build in benchmark reports).
CARGO_TARGET_DIR="$root/target/pgo-gen" \
    RUSTFLAGS="-Cprofile-generate=$data" \
    MEGACO_BUILD=pgo \
    cargo build --release --locked "${quiet[@]}" -p megaco-cli >&2
gen="$root/target/pgo-gen/release/megaco"

echo "pgo: 2/3 training run (codec benchmark, then load on loopback)" >&2
"$gen" bench meas --quick --no-otp --no-progress >/dev/null
port=$((20000 + RANDOM % 20000))
for encoding in pretty ber; do
    "$gen" mgc --listen "127.0.0.1:$port" --encoding "$encoding" --quiet \
        >/dev/null 2>"$data/mgc-$encoding.log" &
    mgc=$!
    sleep 0.5
    "$gen" load --mgc "127.0.0.1:$port" --mgs 20 --concurrency 4 --duration 2 \
        --scenario notify --encoding "$encoding" --quiet >/dev/null ||
        echo "pgo: the $encoding load run failed (see $data/mgc-$encoding.log); training goes on" >&2
    kill -TERM "$mgc" 2>/dev/null || true
    wait "$mgc" 2>/dev/null || true
    port=$((port + 1))
done
ls "$data"/*.profraw >/dev/null 2>&1 || {
    echo "pgo: the training run left no profile in $data" >&2
    exit 1
}
"$profdata" merge -o "$data/megaco.profdata" "$data"/*.profraw

echo "pgo: 3/3 optimised build (target/pgo)" >&2
CARGO_TARGET_DIR="$root/target/pgo" \
    RUSTFLAGS="-Cprofile-use=$data/megaco.profdata" \
    MEGACO_BUILD=pgo \
    cargo build --release --locked "${quiet[@]}" -p megaco-cli >&2
echo "$root/target/pgo/release/megaco"
