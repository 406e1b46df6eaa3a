#!/usr/bin/env bash
# Builds and runs every fuzz target (or the ones named) for a bounded time each, then stops.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]      (default: 120 s, every target)
#
# Exits non-zero if any target crashed, hung, ran out of memory or failed to build; a crashing
# input is saved under fuzz/artifacts/TARGET/ (replay: `RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET
# fuzz/artifacts/TARGET/crash-...`). Corpora grow in fuzz/corpus/TARGET/ (not committed); the
# committed seeds in fuzz/seeds/TARGET/ are read too. One log per target in fuzz/logs/.
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). cargo-fuzz builds with unstable rustc
# flags (`-Zsanitizer=address`, sanitizer-coverage passes), which only a nightly compiler accepts;
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them, so no nightly is needed.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-120}
shift || true
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]" >&2
    exit 2
fi
if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz/run.sh: cargo-fuzz is missing: cargo install cargo-fuzz --locked" >&2
    exit 2
fi
export RUSTC_BOOTSTRAP=1

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

# Bounds every run enforces, on top of the service's own limits:
#   -rss_limit_mb=2048    the whole process stays under 2 GiB;
#   -malloc_limit_mb=512  no single allocation of 512 MiB or more (from inputs of at most 4 KiB,
#                         only a missing limit check could ask for that much);
#   -timeout=10           no input runs longer than 10 s (a hang is reported as a crash);
#   -max_len=4096         inputs of at most 4 KiB.
libfuzzer_options=(
    -rss_limit_mb=2048
    -malloc_limit_mb=512
    -timeout=10
    -max_len=4096
    -print_final_stats=1
)

mkdir -p fuzz/logs
echo "fuzz/run.sh: building ${#targets[@]} target(s)"
build() {
    if [ $# -gt 0 ]; then
        for target; do cargo fuzz build "$target" || return 1; done
    else
        cargo fuzz build
    fi
}
if ! build "$@" >fuzz/logs/build.log 2>&1; then
    echo "fuzz/run.sh: build failed (see fuzz/logs/build.log)" >&2
    tail -20 fuzz/logs/build.log >&2
    exit 1
fi

failed=()
printf '%-18s %8s %10s %8s %8s  %s\n' target seconds execs exec/s rss_mb result
for target in "${targets[@]}"; do
    corpus=fuzz/corpus/$target
    mkdir -p "$corpus" "fuzz/artifacts/$target"
    dirs=("$corpus")
    [ -d "fuzz/seeds/$target" ] && dirs+=("fuzz/seeds/$target")
    log=fuzz/logs/$target.log
    cargo fuzz run "$target" "${dirs[@]}" -- \
        "${libfuzzer_options[@]}" -max_total_time="$seconds" >"$log" 2>&1
    status=$?
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    if [ $status -eq 0 ]; then
        result=ok
    else
        result="FAILED (exit $status): $(grep -m1 -E '^==[0-9]+== ?ERROR|panicked at|deadly signal|Test unit written' "$log" || echo "see $log")"
        failed+=("$target")
    fi
    printf '%-18s %8s %10s %8s %8s  %s\n' "$target" "$seconds" "$(stat number_of_executed_units)" \
        "$(stat average_exec_per_sec)" "$(stat peak_rss_mb)" "$result"
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz/run.sh: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in fuzz/artifacts/, logs in fuzz/logs/)" >&2
    exit 1
fi
echo "fuzz/run.sh: all ${#targets[@]} target(s) ran ${seconds}s each without a failure"
