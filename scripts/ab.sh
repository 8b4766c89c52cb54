#!/usr/bin/env bash
# A/B of server builds against the protocol floor, alternating them round after round so this
# VM's minute-to-minute speed hits every build alike. Per phase (cql-stress write, then read):
# throughput, the server's CPU per operation (/proc/<pid>/stat) and the client's (its user +
# system time). Then, per build: the median of its per-round ratios to the floor of the same
# round, and the medians of its CPU figures. A benchmark, not a test: run it on a quiet machine.
#
#   STRESS_BIN=<cql-stress-cassandra-stress> scripts/ab.sh ROUNDS name=BINARY [name=BINARY ...]
#
# A BINARY may be a script that execs the server with other flags or environment. Environment:
# STRESS_BIN (required), OPS (per phase, default 100000), AB_PORT (default 19700), AB_LOG (the
# raw per-round lines, default a temporary file), FLOOR (required: the protocol floor's
# binary, a CQL responder that stores nothing; docs/benchmarks.md says where it comes from).
set -uo pipefail
die() { echo "ab.sh: $*" >&2; exit 2; }
[ -n "${STRESS_BIN:-}" ] && [ -x "$STRESS_BIN" ] || die "set STRESS_BIN to cql-stress-cassandra-stress"
[ $# -ge 2 ] || die "usage: ab.sh ROUNDS name=BINARY [name=BINARY ...]"
[ -n "${FLOOR:-}" ] && [ -x "$FLOOR" ] || die "set FLOOR to the protocol floor's binary"
ROUNDS=$1; shift
OPS=${OPS:-100000}; PORT=${AB_PORT:-19700}; LOG=${AB_LOG:-$(mktemp)}
HZ=$(getconf CLK_TCK)

cpu_ticks() { awk '{ sub(/^[0-9]+ \([^)]*\) /, ""); split($0, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
# One phase against the server on PORT (pid $1): "phase=rate s=us c=us".
phase() {
  local before after out rate client
  before=$(cpu_ticks "$1")
  out=$( { /usr/bin/time -f "AB_TIME %U %S" timeout -s INT 120 "$STRESS_BIN" "$2" n="$OPS" \
           no-warmup -node "127.0.0.1:$PORT" -rate threads=64 -pop seq=1.."$OPS"; } 2>&1)
  after=$(cpu_ticks "$1")
  rate=$(awk -F: '/^Op rate/{gsub(/[^0-9.]/,"",$2); print $2}' <<<"$out")
  client=$(awk '/^AB_TIME/{print $2 + $3}' <<<"$out")
  awk -v p="$2" -v r="$rate" -v a="$before" -v b="$after" -v hz="$HZ" -v n="$OPS" -v c="$client" \
    'BEGIN { printf "%s=%s s=%.2f c=%.2f", p, r, (b - a) * 1e6 / hz / n, c * 1e6 / n }'
}
# One build (or the floor) for one round: start it, write, read, stop.
one() {  # round name binary
  local dir pid
  dir=$(mktemp -d)
  if [ "$3" = floor ]; then
    FLOOR_MODE=mem "$FLOOR" --addr "127.0.0.1:$PORT" >/dev/null 2>&1 & pid=$!
  else
    "$3" --listen-address 127.0.0.1 --port "$PORT" --data-dir "$dir" >/dev/null 2>&1 & pid=$!
  fi
  for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
  echo "$2 r$1 $(phase "$pid" write) $(phase "$pid" read)" | tee -a "$LOG"
  kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"
}
for r in $(seq 1 "$ROUNDS"); do
  one "$r" floor floor
  for spec in "$@"; do one "$r" "${spec%%=*}" "${spec#*=}"; done
done
python3 - "$LOG" <<'PY'
import re, statistics, sys
rounds = {}
for line in open(sys.argv[1]):
    name, rnd, *_ = line.split()
    rounds.setdefault(rnd, {})[name] = {
        p: (float(r), float(s), float(c))
        for p, r, s, c in re.findall(r"(write|read)=(\S+) s=(\S+) c=(\S+)", line)}
names = sorted({n for r in rounds.values() for n in r if n != "floor"})
med = statistics.median
for name in names:
    for p in ("write", "read"):
        got = [r for r in rounds.values() if name in r and "floor" in r and p in r[name]]
        ratios = [r[name][p][0] / r["floor"][p][0] for r in got if r["floor"][p][0]]
        if not ratios:
            continue
        print(f"{name:10} {p:5} ratio {med(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
              f"  server {med(r[name][p][1] for r in got):.2f} us/op"
              f"  client {med(r[name][p][2] for r in got):.2f} us/op"
              f"  (floor: server {med(r['floor'][p][1] for r in got):.2f}, "
              f"client {med(r['floor'][p][2] for r in got):.2f})")
PY
