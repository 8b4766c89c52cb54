#!/usr/bin/env bash
# Server CPU per operation, by thread, over one cql-stress write phase and one read phase:
# the figure behind compare.sh's ratios that does not move with this VM's speed. Then the same
# two phases against the protocol floor (../shared/bench/floor, FLOOR_MODE=mem: a responder
# that stores nothing), and the server's CPU per operation over the floor's, measured in one
# run. A benchmark, not a test: run it on a quiet machine.
#
#   STRESS_BIN=<cql-stress-cassandra-stress> scripts/cpu-per-op.sh [server binary]
#
# Environment: STRESS_BIN (required), BENCH_PORT (default 19660), OPS (default 200000),
# PERF_PHASE (write|read: record the server's phase with `perf record -g` into
# /tmp/cpu-per-op.perf), FLOOR (the floor binary; default: built from ../shared/bench/floor;
# `none` skips the floor).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SERVER=${1:-$HERE/../target/release/cqld}
die() { echo "cpu-per-op.sh: $*" >&2; exit 2; }
[ -x "$SERVER" ] || die "no server binary at $SERVER (cargo build --release -p server)"
[ -n "${STRESS_BIN:-}" ] && [ -x "$STRESS_BIN" ] || die "set STRESS_BIN to cql-stress-cassandra-stress"
PORT=${BENCH_PORT:-19660}; OPS=${OPS:-200000}

# "name ticks" for every thread of the server (utime + stime, in clock ticks).
ticks() {
  for t in /proc/"$PID"/task/*; do
    awk '{ sub(/^[0-9]+ \(/, ""); name=$0; sub(/\).*/, "", name); rest=$0; sub(/^[^)]*\) /, "", rest);
           split(rest, f, " "); print name, f[12] + f[13] }' "$t/stat" 2>/dev/null
  done | awk '{ n[$1] += $2 } END { for (k in n) print k, n[k] }' | sort
}
# Per-thread-name CPU between two `ticks` snapshots, as microseconds per operation.
report() {  # phase before after
  local hz; hz=$(getconf CLK_TCK)
  join -a2 -e0 -o 0,1.2,2.2 <(echo "$2") <(echo "$3") | awk -v ops="$OPS" -v hz="$hz" -v phase="$1" '
    { us = ($3 - $2) * 1e6 / hz / ops; total += us; if (us > 0) printf "%s %-18s %6.2f us/op\n", phase, $1, us }
    END { printf "%s %-18s %6.2f us/op\n", phase, "TOTAL", total }'
}
phase() {  # write|read [who]
  local before after out perf_pid=""
  before=$(ticks)
  if [ "${PERF_PHASE:-}" = "$1" ] && [ "${2:-server}" = server ]; then
    perf record -F 999 --call-graph dwarf,16384 -p "$PID" -o /tmp/cpu-per-op.perf >/dev/null 2>&1 & perf_pid=$!
    sleep 0.3
  fi
  out=$(timeout -s INT 300 "$STRESS_BIN" "$1" n="$OPS" no-warmup -node "127.0.0.1:$PORT" \
        -rate threads=64 -pop seq=1.."$OPS" 2>&1)
  [ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null; }
  after=$(ticks)
  echo "${2:-server} $1 $(awk -F: '/^Op rate/{gsub(/[^0-9.]/,"",$2); print $2}' <<<"$out") ops/s, p99 \
$(awk -F: '/Latency 99th/{gsub(/[^0-9.]/,"",$2); print $2}' <<<"$out") ms"
  report "$1" "$before" "$after" | tee -a "$TOTALS.${2:-server}"
}
# Waits for a listener on $PORT, or dies with the log of the process $PID.
await_port() {
  until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || die "$1 exited: $(tail -3 "$DIR.log")"
    sleep 0.01
  done
}
TOTALS=$(mktemp)

DIR=$(mktemp -d)
"$SERVER" --port "$PORT" --data-dir "$DIR" >"$DIR.log" 2>&1 &
PID=$!
await_port server
phase write
phase read
kill -INT "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$DIR" "$DIR.log"

FLOOR=${FLOOR:-$HERE/../../shared/bench/floor/target/release/cql-floor}
if [ "$FLOOR" != none ]; then
  if [ ! -x "$FLOOR" ]; then
    (cd "$HERE/../../shared/bench/floor" && cargo build --release -q) || die "the floor does not build"
  fi
  DIR=$(mktemp -d)
  FLOOR_MODE=mem "$FLOOR" --addr 127.0.0.1:"$PORT" >"$DIR.log" 2>&1 &
  PID=$!
  await_port floor
  phase write floor
  phase read floor
  kill -INT "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$DIR" "$DIR.log"
  # The server's total CPU per operation over the floor's, per phase (targets: writes <= 2.5,
  # reads <= 3).
  for p in write read; do
    s=$(awk -v p="$p" '$1 == p && $2 == "TOTAL" { print $3 }' "$TOTALS.server")
    f=$(awk -v p="$p" '$1 == p && $2 == "TOTAL" { print $3 }' "$TOTALS.floor")
    awk -v p="$p" -v s="$s" -v f="$f" \
      'BEGIN { printf "%s cpu_per_op server=%.2f us floor=%.2f us ratio=%.2f\n", p, s, f, (f > 0 ? s / f : 0) }'
  done
fi
rm -f "$TOTALS" "$TOTALS.server" "$TOTALS.floor"
