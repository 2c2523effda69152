#!/usr/bin/env bash
# bench/load/run.sh: HTTP load benchmark of `dynarock serve` against moto's
# server and against a ceiling, nginx answering a static DynamoDB-shaped
# reply, in one run, over keep-alive connections driven by wrk.
#
#   bench/load/run.sh [--dynarock BIN] [--duration 10s] [--connections 16]
#                     [--wrk-threads 2] [--server-threads "1 2"]
#                     [--ops "get_item put_item query cond_put"]
#                     [--timeout 10s] [--in-memory] [--no-moto] [--no-dynarock]
#                     [--no-nginx]
#
# For each server thread count, starts `dynarock serve --port 0 --threads N`
# (on a fresh data directory, or --in-memory), loads the table with setup.py and
# runs each op's wrk script (1 s warm-up, then the measured run). moto
# (`python3 -m moto.server`, one Python process: no thread setting) is set up
# and measured once. Prints requests/s, p50 and p99 latency for every row, and
# Dynarock's throughput as a multiple of moto's and as a fraction of the
# ceiling: nginx (Debian's nginx-light, one worker, started here on its own
# loopback port) answering every request of the same wrk scripts with a
# fixed 200 reply the size of a GetItem answer. It measures what the machine,
# the loopback and wrk allow; no server can answer faster.
#
# Needs: wrk, python3 with boto3 (and moto unless --no-moto), curl, and the
# dynarock binary (default build/dynarock; or DYNAROCK_BIN).
#
# Rows with non-2xx > 0 were answered with errors: their numbers measure error
# handling, not the operation.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

DYNAROCK_BIN=${DYNAROCK_BIN:-$ROOT/build/dynarock}
DURATION=10s
WARMUP=1s
TIMEOUT=10s  # wrk's default (2 s) would count moto's slow Queries as errors
CONNECTIONS=16
WRK_THREADS=2
SERVER_THREADS="1 2"
OPS="get_item put_item query cond_put"
IN_MEMORY=0
RUN_MOTO=1
RUN_DYNAROCK=1
RUN_NGINX=1
NGINX_BIN=${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}

usage() { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --dynarock) DYNAROCK_BIN=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --wrk-threads) WRK_THREADS=$2; shift 2 ;;
    --server-threads) SERVER_THREADS=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --in-memory) IN_MEMORY=1; shift ;;
    --no-moto) RUN_MOTO=0; shift ;;
    --no-dynarock) RUN_DYNAROCK=0; shift ;;
    --no-nginx) RUN_NGINX=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found" >&2; exit 1; }
done
if [[ $RUN_DYNAROCK == 1 && ! -x $DYNAROCK_BIN ]]; then
  echo "run.sh: no dynarock binary at $DYNAROCK_BIN (build it, or pass --dynarock BIN)" >&2
  exit 1
fi
for op in $OPS; do
  [[ -f $HERE/$op.lua ]] || { echo "run.sh: no script $HERE/$op.lua" >&2; exit 2; }
done
if [[ $RUN_NGINX == 1 && ! -x $NGINX_BIN ]]; then
  echo "run.sh: nginx not found (apt-get install nginx-light, or --no-nginx): no ceiling" >&2
  RUN_NGINX=0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dynarock-load.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_ready() {  # url
  for _ in $(seq 1 200); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$1" || true)
    [[ $code != 000 ]] && return 0
    sleep 0.05
  done
  echo "run.sh: server at $1 did not come up" >&2
  return 1
}

stop_pid() {  # pid
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local kept=()
  for p in "${PIDS[@]}"; do [[ $p != "$1" ]] && kept+=("$p"); done
  PIDS=("${kept[@]+"${kept[@]}"}")
}

# Results: RES[<op>|<server>|<threads>] = "rps p50 p99 requests non2xx errors"
declare -A RES
ROWS=()

run_wrk() {  # label threads url op
  local label=$1 threads=$2 url=$3 op=$4
  local script=$WORK/$op.lua
  cat "$HERE/common.lua" "$HERE/$op.lua" > "$script"
  wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$WARMUP" --timeout "$TIMEOUT" -s "$script" "$url" >/dev/null 2>&1 || true
  local out
  out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout "$TIMEOUT" -s "$script" "$url" 2>&1) || {
    echo "run.sh: wrk failed for $label $op:" >&2
    echo "$out" >&2
    return 1
  }
  local line
  line=$(sed -n 's/^RESULT //p' <<<"$out")
  if [[ -z $line ]]; then
    echo "run.sh: no RESULT line from wrk for $label $op:" >&2
    echo "$out" >&2
    return 1
  fi
  local rps p50 p99 requests non2xx errors
  for kv in $line; do
    case "${kv%%=*}" in
      rps) rps=${kv#*=} ;; p50_ms) p50=${kv#*=} ;; p99_ms) p99=${kv#*=} ;;
      requests) requests=${kv#*=} ;; non2xx) non2xx=${kv#*=} ;; errors) errors=${kv#*=} ;;
    esac
  done
  RES["$op|$label|$threads"]="$rps $p50 $p99 $requests $non2xx $errors"
  ROWS+=("$op|$label|$threads")
  printf '  %-9s %-9s %-7s %10s req/s  p50 %8s ms  p99 %8s ms  non-2xx %s  errors %s\n' \
    "$op" "$label" "$threads" "$rps" "$p50" "$p99" "$non2xx" "$errors" >&2
}

echo "wrk: $WRK_THREADS threads, $CONNECTIONS keep-alive connections, ${DURATION} per run (+${WARMUP} warm-up); $(nproc) cores" >&2

if [[ $RUN_DYNAROCK == 1 ]]; then
  for t in $SERVER_THREADS; do
    data_args=(--data "$WORK/data-$t")
    [[ $IN_MEMORY == 1 ]] && data_args=(--in-memory)
    "$DYNAROCK_BIN" serve --port 0 --threads "$t" "${data_args[@]}" \
      >"$WORK/dynarock-$t.out" 2>"$WORK/dynarock-$t.err" &
    pid=$!
    PIDS+=("$pid")
    url=""
    for _ in $(seq 1 200); do
      url=$(sed -n 's/^dynarock listening on \(http:[^ ]*\).*/\1/p' "$WORK/dynarock-$t.out")
      [[ -n $url ]] && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    if [[ -z $url ]]; then
      echo "run.sh: dynarock did not start:" >&2
      cat "$WORK/dynarock-$t.err" >&2
      exit 1
    fi
    echo "dynarock ($t server thread(s)) at $url" >&2
    python3 "$HERE/setup.py" --endpoint "$url"
    for op in $OPS; do run_wrk dynarock "$t" "$url/" "$op"; done
    stop_pid "$pid"
  done
fi

if [[ $RUN_NGINX == 1 ]]; then
  port=$(free_port)
  mkdir -p "$WORK/nginx"
  # A GetItem-sized reply (~200 bytes), the same for every request.
  body='{"Item":{"pk":{"S":"G#123"},"sk":{"S":"0"},"name":{"S":"a bench item of about two hundred bytes"},"n":{"N":"42"},"tags":{"SS":["a","b","c"]},"data":{"S":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}}'
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
  server {
    listen 127.0.0.1:$port;
    location / {
      default_type application/x-amz-json-1.0;
      return 200 '$body';
    }
  }
}
CONF
  "$NGINX_BIN" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" >"$WORK/nginx/out.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  url="http://127.0.0.1:$port"
  wait_ready "$url/"
  echo "nginx (the ceiling, 1 worker) at $url" >&2
  for op in $OPS; do run_wrk nginx 1 "$url/" "$op"; done
  stop_pid "$pid"
fi

if [[ $RUN_MOTO == 1 ]]; then
  port=$(free_port)
  python3 -m moto.server -p "$port" >"$WORK/moto.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  url="http://127.0.0.1:$port"
  wait_ready "$url/"
  echo "moto at $url" >&2
  python3 "$HERE/setup.py" --endpoint "$url"
  for op in $OPS; do run_wrk moto "-" "$url/" "$op"; done
  stop_pid "$pid"
fi

# ---- Report ----
echo
echo "Load benchmark: wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION, keep-alive, $(nproc) cores"
printf '%-9s %-9s %-8s %12s %10s %10s %9s %7s\n' op server threads 'req/s' 'p50 ms' 'p99 ms' non-2xx errors
for row in "${ROWS[@]}"; do
  IFS='|' read -r op label threads <<<"$row"
  read -r rps p50 p99 requests non2xx errors <<<"${RES[$row]}"
  printf '%-9s %-9s %-8s %12s %10s %10s %9s %7s\n' "$op" "$label" "$threads" "$rps" "$p50" "$p99" "$non2xx" "$errors"
done

# Each Dynarock row against another server's row of the same op:
# compare LABEL THREADS AWK_PROGRAM (given d, o: the two req/s; dl, ol: p50s).
compare() {
  local label=$1 threads=$2 program=$3
  for op in $OPS; do
    other=${RES["$op|$label|$threads"]:-}
    [[ -z $other ]] && continue
    read -r o_rps o_p50 _ <<<"$other"
    for t in $SERVER_THREADS; do
      dyn=${RES["$op|dynarock|$t"]:-}
      [[ -z $dyn ]] && continue
      read -r d_rps d_p50 _ <<<"$dyn"
      awk -v op="$op" -v t="$t" -v d="$d_rps" -v o="$o_rps" -v dl="$d_p50" -v ol="$o_p50" \
        "BEGIN { $program }"
    done
  done
}

if [[ $RUN_DYNAROCK == 1 && $RUN_MOTO == 1 ]]; then
  echo
  echo "Dynarock vs moto: throughput ratio (Dynarock req/s / moto req/s) and p50 ratio (moto p50 / Dynarock p50)"
  compare moto - 'r = (o > 0) ? d / o : 0; l = (dl > 0) ? ol / dl : 0;
    printf "%-9s %s server thread(s): %8.1fx req/s   p50 %8.1fx shorter\n", op, t, r, l'
fi

if [[ $RUN_DYNAROCK == 1 && $RUN_NGINX == 1 ]]; then
  echo
  echo "Dynarock vs the ceiling (nginx, a static reply, 1 worker): Dynarock req/s / nginx req/s"
  compare nginx 1 'printf "%-9s %s server thread(s): %6.2fx the ceiling\n", op, t, (o > 0) ? d / o : 0'
fi

bad=0
for row in "${ROWS[@]}"; do
  read -r _ _ _ _ non2xx errors <<<"${RES[$row]}"
  if [[ $non2xx != 0 || $errors != 0 ]]; then bad=1; fi
done
if [[ $bad == 1 ]]; then
  echo
  echo "WARNING: some rows had non-2xx responses or socket errors; their numbers are not" \
       "those of successful operations."
fi
