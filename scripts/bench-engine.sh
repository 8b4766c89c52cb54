#!/usr/bin/env bash
# The engine's own figures, beside ../shared/bench/compare.sh's ratios: start to accepting
# connections, idle RSS, acknowledged writes/s in each sync mode with 64 writers, and RSS
# after loading 1 M rows. A benchmark, not a test: run it on a quiet machine.
#
#   STRESS_BIN=<cql-stress-cassandra-stress> scripts/bench-engine.sh [server binary]
#
# Environment: STRESS_BIN (required), BENCH_PORT (default 19650), LOAD_ROWS (default 1000000),
# MODE_ROWS (writes per sync-mode run, default 200000), GROUP_WINDOW (default 2ms).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SERVER=${1:-$HERE/../target/release/cqld}
die() { echo "bench-engine.sh: $*" >&2; exit 2; }
[ -x "$SERVER" ] || die "no server binary at $SERVER (cargo build --release -p server)"
[ -n "${STRESS_BIN:-}" ] && [ -x "$STRESS_BIN" ] || die "set STRESS_BIN to cql-stress-cassandra-stress"
PORT=${BENCH_PORT:-19650}; LOAD=${LOAD_ROWS:-1000000}; ROWS=${MODE_ROWS:-200000}
WINDOW=${GROUP_WINDOW:-2ms}

rss_kb() { awk '/VmRSS/{print $2}' "/proc/$1/status"; }
accepting() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# Starts the server on a fresh directory; sets PID and DIR.
start() {
  DIR=$(mktemp -d)
  "$SERVER" --port "$PORT" --data-dir "$DIR" "$@" >"$DIR.log" 2>&1 &
  PID=$!
  until accepting; do
    kill -0 "$PID" 2>/dev/null || die "server exited: $(tail -3 "$DIR.log")"
    sleep 0.001
  done
}
stop() { kill -INT "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$DIR" "$DIR.log"; }
writes() {  # n -> "ops/s p99_ms"
  local out
  out=$(timeout -s INT 300 "$STRESS_BIN" write n="$1" no-warmup -node "127.0.0.1:$PORT" \
        -rate threads=64 -pop seq=1.."$1" 2>&1)
  echo "$(awk -F: '/^Op rate/{gsub(/[^0-9.]/,"",$2); print $2}' <<<"$out") \
$(awk -F: '/Latency 99th/{gsub(/[^0-9.]/,"",$2); print $2}' <<<"$out")"
}

# Start to accepting: spawn, then connect every 0.2 ms; median of 15 starts.
python3 - "$SERVER" "$PORT" <<'PY'
import shutil, socket, statistics, subprocess, sys, tempfile, time
binary, port, times = sys.argv[1], int(sys.argv[2]), []
for _ in range(15):
    d = tempfile.mkdtemp()
    t0 = time.perf_counter()
    p = subprocess.Popen([binary, "--port", str(port), "--data-dir", d],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.05).close()
            break
        except OSError:
            time.sleep(0.0002)
    times.append((time.perf_counter() - t0) * 1000)
    p.send_signal(2); p.wait(); shutil.rmtree(d)
print("start_to_accepting_ms=%.1f" % statistics.median(times))
PY
start
sleep 1
echo "idle_rss_kb=$(rss_kb "$PID")"
stop
for mode in periodic batch group; do
  flags=(--commitlog-sync "$mode")
  [ "$mode" = group ] && flags+=(--commitlog-sync-group-window "$WINDOW")
  start "${flags[@]}"
  read -r ops p99 <<<"$(writes "$ROWS")"
  echo "mode=$mode writes_per_s=$ops p99_ms=$p99"
  stop
done
start
read -r ops _ <<<"$(writes "$LOAD")"
echo "loaded_rows=$LOAD load_writes_per_s=$ops rss_after_load_kb=$(rss_kb "$PID")"
stop
