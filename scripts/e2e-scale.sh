#!/usr/bin/env bash
# The shipped workflow (workflows/pr-review.json) at scale, all on loopback:
# n8n 2.8.4 in queue mode (one main serving the webhook, workers running the
# executions from Redis, Postgres as its database) in front of prscout
# replicas behind nginx, against a fake Bitbucket of 8 repositories x 5 pull
# requests and a fake LLM that takes 300-800 ms per call.
#
#   fake Bitbucket --signed webhook--> nginx --> prscout /v1/webhooks/bitbucket --> n8n main /webhook
#   n8n main --Redis--> n8n workers --> nginx (round robin) --> prscout replicas --> fake Bitbucket
#
# Load: the webhooks of all 40 pull requests in one burst, then a push to
# half of them (their delta reviews). Faults during the burst (scaled run
# only): a 429 window (every 4th REST call answered 429 with Retry-After:
# 2 for 30 s, scaled down from a minute to keep the run bounded), one prscout
# replica SIGKILLed and restarted, one n8n worker SIGKILLed (with its task
# runner) and restarted; and, in every run, repository svc8 whose comment
# posts fail for good (503). Heads whose build status is still open after
# the burst (their execution died with the worker) get their webhook again,
# as the next delivery would; the report counts them.
#
# Checks (scripts/e2e/scale/scalecheck): every head reviewed once (one
# summary, each planted finding exactly once on its line, no inline comment
# twice, at most one execution posting a head), every build status closed
# (SUCCESSFUL/FAILED; STOPPED with the reason in svc8), reviews that got 429s
# within the untouched reviews' longest time + the Retry-After they got
# + 2 s + 0.5 s a 429,
# every 429 honoured, REST calls per review within docs/bitbucket-jira.md's
# bound. Exits non-zero when one fails.
#
#   scripts/e2e-scale.sh            both runs (--single, then --scaled), both reports and the ratio
#   scripts/e2e-scale.sh --single   one prscout, one worker, no nginx, no transient faults
#   scripts/e2e-scale.sh --scaled   two prscout replicas behind nginx, two workers, the faults
#
# Needs root or sudo once (apt-get install postgresql redis-server nginx when
# absent; no service is started), Go, Node 20 and n8n 2.8.4 installed by
# scripts/e2e-n8n.sh into ${PRSCOUT_N8N_CACHE:-$HOME/.cache/prscout-n8n}.
# Postgres runs as the postgres user (when run as root) from a private
# cluster in the work folder. Every process started here is stopped by its
# PID on exit. Knobs: PRSCOUT_SCALE_CONCURRENCY (per worker, default 5),
# PRSCOUT_E2E_KEEP=1 (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-both}
T0=$(date +%s%N)
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
log() { printf '[e2e-scale %s %6.1fs] %s\n' "${MODE#--}" "$(echo "$(ms "$T0")" | awk '{print $1/1000}')" "$*"; }
die() { log "FAIL: $*"; exit 1; }

if [ "$MODE" = both ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/prscout-e2e-scale-both.XXXXXX")
	trap 'rm -rf "$OUT"' EXIT
	rc=0
	PRSCOUT_SCALE_SUMMARY="$OUT/single.json" "$0" --single | tee "$OUT/single.log" || rc=$?
	[ "$rc" -eq 0 ] && { PRSCOUT_SCALE_SUMMARY="$OUT/scaled.json" "$0" --scaled | tee "$OUT/scaled.log" || rc=$?; }
	[ "$rc" -eq 0 ] || { echo "e2e-scale: FAIL"; exit "$rc"; }
	echo
	sed -n '/^== report/,/^scalecheck/p' "$OUT/single.log"
	sed -n '/^== report/,/^scalecheck/p' "$OUT/scaled.log"
	node -e '
const fs = require("fs");
const [s, c] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f)));
const r = (a, b) => (b > 0 ? (a / b).toFixed(2) : "n/a");
console.log(`== ratio scaled/single: throughput of the push phase (no transient fault in either) x${r(s.pushSeconds, c.pushSeconds)} (${s.pushSeconds.toFixed(1)} s -> ${c.pushSeconds.toFixed(1)} s); burst x${r(s.burstSeconds, c.burstSeconds)} (${s.burstSeconds.toFixed(1)} s -> ${c.burstSeconds.toFixed(1)} s, the scaled burst with its faults); review p50 without faults ${(s.p50Clean/1000).toFixed(2)} s -> ${(c.p50Clean/1000).toFixed(2)} s`);' "$OUT/single.json" "$OUT/scaled.json"
	echo "e2e-scale: PASS total=$(ms "$T0")ms"
	exit 0
fi
case "$MODE" in
--single) REPLICAS=1 WORKERS=1 FAULTS="" ;;
--scaled) REPLICAS=2 WORKERS=2 FAULTS=1; [ "${PRSCOUT_SCALE_FAULTS:-1}" = 0 ] && FAULTS="" ;;
*) echo "usage: $0 [--single|--scaled]" >&2; exit 2 ;;
esac
CONC=${PRSCOUT_SCALE_CONCURRENCY:-5}

# --- 0. Debian's postgresql, redis-server and nginx, installed once -------------
need=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo"
	log "installing ${need[*]} (Debian packages; their services are not started)"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	# policy-rc.d keeps the packages' scripts from starting their services;
	# removed afterwards only when this script put it there.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
		$SUDO chmod +x /usr/sbin/policy-rc.d
		$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" || { $SUDO rm -f /usr/sbin/policy-rc.d; die "apt-get install failed"; }
		$SUDO rm -f /usr/sbin/policy-rc.d
	else
		$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
	fi
fi
PGBIN=$(dirname "$(ls /usr/lib/postgresql/*/bin/postgres | sort -V | tail -1)")
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# --- 1. n8n, installed by scripts/e2e-n8n.sh -------------------------------------
CACHE=${PRSCOUT_N8N_CACHE:-$HOME/.cache/prscout-n8n}
LOCK_SUM=$(cat "$ROOT/scripts/e2e/n8n/package.json" "$ROOT/scripts/e2e/n8n/package-lock.json" | sha256sum | cut -c1-12)
N8N_DIR="$CACHE/n8n-2.8.4-$LOCK_SUM"
N8N_BIN="$N8N_DIR/node_modules/n8n/bin/n8n"
[ -f "$N8N_DIR/.installed" ] && [ -x "$N8N_BIN" ] || die "n8n 2.8.4 is not installed in $N8N_DIR: run scripts/e2e-n8n.sh once"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prscout-e2e-scale.XXXXXX")
chmod 755 "$WORK"
PIDS=()
cleanup() {
	local rc=$? i pid
	[ -f "$WORK/nginx.pid" ] && kill -TERM "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
	# Newest first: n8n and prscout stop before Redis and Postgres they use.
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		pid=${PIDS[$i]}
		if [ "$pid" = "${PG_PID:-}" ]; then
			kill -INT "$pid" 2>/dev/null || true # Postgres' fast shutdown
		else
			kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
		fi
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
	done
	if [ "$rc" -ne 0 ]; then
		log "logs kept in $WORK"
	elif [ -z "${PRSCOUT_E2E_KEEP:-}" ]; then
		rm -rf "$WORK"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# forget PID: a process that was stopped (its PID may be reused).
forget() { local keep=() p; for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done; PIDS=("${keep[@]}"); }
# bg NAME CMD...: start CMD in its own process group (setsid), log to NAME.log; BG_PID is its PID.
bg() { local name=$1; shift; setsid "$@" >>"$WORK/$name.log" 2>&1 & BG_PID=$!; PIDS+=("$BG_PID"); }

freeport() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
http_ok() { node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"; }
waitfile() { for _ in $(seq 1 300); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
waitlog() { # waitlog FILE TEXT PID SECONDS
	for _ in $(seq 1 $(($4 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || { tail -20 "$1"; return 1; }
		sleep 0.1
	done
	return 1
}
json() { node -e 'const o=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(process.argv[2].split(".").reduce((a,k)=>a[k],o))' "$@"; }
rand() { node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))'; }
fault() { echo "{\"kind\":\"$1\",\"from\":$2,\"to\":$3}" >>"$WORK/faults.jsonl"; }
: >"$WORK/faults.jsonl"

# --- 2. build ---------------------------------------------------------------------
t=$(date +%s%N)
mkdir -p "$WORK/bin"
(cd "$ROOT" && go build -o "$WORK/bin/prscout" ./cmd/prscout &&
	go build -o "$WORK/bin/fakebb" ./scripts/e2e/scale/fakebb &&
	go build -o "$WORK/bin/fakellm" ./scripts/e2e/scale/fakellm &&
	go build -o "$WORK/bin/scalecheck" ./scripts/e2e/scale/scalecheck)
log "built prscout and the scale fakes: $(ms "$t") ms"

API_KEY=$(rand) LLM_KEY=$(rand) FORWARD_TOKEN=$(rand) WEBHOOK_SECRET=$(rand) BB_TOKEN=$(rand) ENC_KEY=$(rand)
PG_PORT=$(freeport) REDIS_PORT=$(freeport) N8N_PORT=$(freeport) NGINX_PORT=$(freeport)
N8N="http://127.0.0.1:$N8N_PORT"
HOOK_PATH=prscout-review

# --- 3. Postgres and Redis, private, on loopback ------------------------------------
t=$(date +%s%N)
mkdir -p "$WORK/pg" "$WORK/pgsock" "$WORK/redis"
AS=()
if [ "$(id -u)" -eq 0 ]; then
	# Postgres refuses to run as root: run it as the package's postgres user.
	chown postgres "$WORK/pg" "$WORK/pgsock"
	AS=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi
"${AS[@]}" "$PGBIN/initdb" -D "$WORK/pg/data" -U n8n -A trust -E UTF8 --no-sync >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log"; die "initdb failed"; }
bg postgres "${AS[@]}" "$PGBIN/postgres" -D "$WORK/pg/data" -p "$PG_PORT" -k "$WORK/pgsock" -c listen_addresses=127.0.0.1 \
	-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100
PG_PID=$BG_PID
bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/redis"
waitlog "$WORK/postgres.log" "ready to accept connections" "$PG_PID" 30 || die "postgres did not start"
"$PGBIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U n8n n8n || die "createdb failed"
waitlog "$WORK/redis.log" "Ready to accept connections" "$BG_PID" 30 || die "redis did not start"
log "postgres $(basename "$(dirname "$PGBIN")") on $PG_PORT, redis on $REDIS_PORT: $(ms "$t") ms"

# --- 4. fakes, prscout replicas, nginx ------------------------------------------------
if [ "$REPLICAS" -gt 1 ]; then FRONT="http://127.0.0.1:$NGINX_PORT"; fi
PORTS=()
for i in $(seq 1 "$REPLICAS"); do PORTS+=("$(freeport)"); done
[ "$REPLICAS" -gt 1 ] || FRONT="http://127.0.0.1:${PORTS[0]}"
bg fakebb "$WORK/bin/fakebb" -state-file "$WORK/fakebb.json" -token "$BB_TOKEN" \
	-webhook-url "$FRONT/v1/webhooks/bitbucket" -webhook-secret "$WEBHOOK_SECRET"
bg fakellm "$WORK/bin/fakellm" -addr-file "$WORK/fakellm.addr" -key "$LLM_KEY" -min-delay 300ms -max-delay 800ms
waitfile "$WORK/fakebb.json" || die "fake Bitbucket did not start (see $WORK/fakebb.log)"
waitfile "$WORK/fakellm.addr" || die "fake LLM did not start"
BB_API=$(json "$WORK/fakebb.json" api)
BB_CTL=$(json "$WORK/fakebb.json" control)
LLM_BASE="http://$(cat "$WORK/fakellm.addr")/v1"

declare -A RPID
start_prscout() { # start_prscout I: replica I on its port with its own mirror directory
	local i=$1
	bg "prscout$i" env PRSCOUT_ADDR="127.0.0.1:${PORTS[$((i - 1))]}" PRSCOUT_API_KEYS="$API_KEY" PRSCOUT_LOG_FORMAT=text \
		PRSCOUT_BITBUCKET_BASE_URL="$BB_API" PRSCOUT_BITBUCKET_ACCESS_TOKEN="$BB_TOKEN" \
		PRSCOUT_WEBHOOK_SECRET="$WEBHOOK_SECRET" PRSCOUT_FORWARD_URL="$N8N/webhook/$HOOK_PATH" \
		PRSCOUT_FORWARD_TOKEN="$FORWARD_TOKEN" PRSCOUT_MIRROR_DIR="$WORK/mirror$i" "$WORK/bin/prscout" serve
	RPID[$i]=$BG_PID
	for _ in $(seq 1 100); do http_ok "http://127.0.0.1:${PORTS[$((i - 1))]}/readyz" && return 0; sleep 0.1; done
	die "prscout $i is not ready (see $WORK/prscout$i.log)"
}
peak_rss() { # peak_rss I: the replica's peak resident set (VmHWM, kB) into rss.txt
	local kb
	kb=$(awk '/^VmHWM/ {print $2}' "/proc/${RPID[$1]}/status" 2>/dev/null || echo 0)
	echo "prscout$1 ${kb:-0}" >>"$WORK/rss.txt"
}
for i in $(seq 1 "$REPLICAS"); do start_prscout "$i"; done
if [ "$REPLICAS" -gt 1 ]; then
	mkdir -p "$WORK/nginx/logs"
	{
		echo "worker_processes 1; pid $WORK/nginx.pid; error_log $WORK/nginx/logs/error.log warn;"
		echo "events { worker_connections 1024; }"
		echo "http { access_log off; client_max_body_size 64m;"
		for d in client_body proxy fastcgi uwsgi scgi; do echo "  ${d}_temp_path $WORK/nginx/$d;"; done
		echo "  upstream prscout {"
		for p in "${PORTS[@]}"; do echo "    server 127.0.0.1:$p max_fails=1 fail_timeout=2s;"; done
		echo "    keepalive 32; }"
		echo "  server { listen 127.0.0.1:$NGINX_PORT;"
		echo "    location / { proxy_pass http://prscout; proxy_http_version 1.1; proxy_set_header Connection \"\";"
		echo "      proxy_read_timeout 300s; proxy_send_timeout 300s; } } }"
	} >"$WORK/nginx.conf"
	"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx.conf" -e "$WORK/nginx/logs/error.log" || die "nginx did not start"
	for _ in $(seq 1 50); do http_ok "$FRONT/readyz" && break; sleep 0.1; done
fi
log "$REPLICAS prscout replica(s) at $FRONT$([ "$REPLICAS" -gt 1 ] && echo " (nginx round robin over ports ${PORTS[*]})")"

# --- 5. n8n in queue mode: credentials, workflow, main, workers ------------------------
export N8N_USER_FOLDER="$WORK/n8n" N8N_PORT N8N_LISTEN_ADDRESS=127.0.0.1 N8N_HOST=127.0.0.1 \
	N8N_PROTOCOL=http N8N_SECURE_COOKIE=false N8N_DIAGNOSTICS_ENABLED=false N8N_DIAGNOSTICS_CONFIG_FRONTEND= \
	N8N_DIAGNOSTICS_CONFIG_BACKEND= N8N_PERSONALIZATION_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false \
	N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED=false N8N_TEMPLATES_ENABLED=false N8N_HIRING_BANNER_ENABLED=false \
	N8N_DYNAMIC_BANNERS_ENABLED=false N8N_AI_ENABLED=false N8N_LICENSE_AUTO_RENEW_ENABLED=false \
	N8N_COMMUNITY_PACKAGES_ENABLED=false EXTERNAL_FRONTEND_HOOKS_URLS= N8N_ENCRYPTION_KEY="$ENC_KEY" \
	N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1 N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=false N8N_LOG_LEVEL=info \
	EXECUTIONS_MODE=queue DB_TYPE=postgresdb DB_POSTGRESDB_HOST=127.0.0.1 DB_POSTGRESDB_PORT="$PG_PORT" \
	DB_POSTGRESDB_DATABASE=n8n DB_POSTGRESDB_USER=n8n DB_POSTGRESDB_PASSWORD= \
	QUEUE_BULL_REDIS_HOST=127.0.0.1 QUEUE_BULL_REDIS_PORT="$REDIS_PORT" \
	QUEUE_WORKER_LOCK_DURATION=10000 QUEUE_WORKER_LOCK_RENEW_TIME=2000 QUEUE_WORKER_STALLED_INTERVAL=5000
# The queue recovery (N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL) keeps n8n's
# default of 180 minutes, so it runs once, at main's start: it marks crashed
# any execution stored as new whose job is not yet in Redis, and a worker
# drops a crashed execution unrun (workflows/README.md, "Running at scale").
# The killed worker's executions need no recovery: n8n fails a stalled job
# at once and ends its execution in error.
unset N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL
mkdir -p "$N8N_USER_FOLDER"
node "$ROOT/deploy/n8n-credentials.js" "$WORK/creds.json" "$API_KEY" "$LLM_KEY" "$LLM_BASE" "$FORWARD_TOKEN" >/dev/null
node -e '
const fs = require("fs");
const [src, out, prscout, llm] = process.argv.slice(1);
const wf = JSON.parse(fs.readFileSync(src));
const set = { prscoutUrl: prscout, llmBaseUrl: llm, scoutModel: "scale-scout", reviewModel: "scale-review" };
const cfg = wf.nodes.find((n) => n.name === "Config");
for (const a of cfg.parameters.assignments.assignments) if (a.name in set) a.value = set[a.name];
fs.writeFileSync(out, JSON.stringify(wf));' "$ROOT/workflows/pr-review.json" "$WORK/workflow.json" "$FRONT" "$LLM_BASE"
WF_ID=$(json "$WORK/workflow.json" id)
t=$(date +%s%N)
cli() { N8N_RUNNERS_BROKER_PORT=$(freeport) node "$N8N_BIN" "$@" >>"$WORK/n8n-cli.log" 2>&1; }
cli import:credentials --input="$WORK/creds.json" || die "import:credentials failed (see $WORK/n8n-cli.log)"
cli import:workflow --input="$WORK/workflow.json" || die "import:workflow failed (see $WORK/n8n-cli.log)"
cli publish:workflow --id="$WF_ID" || die "publish:workflow failed (see $WORK/n8n-cli.log)"
log "imported credentials and workflow $WF_ID into Postgres: $(ms "$t") ms"
t=$(date +%s%N)
N8N_RUNNERS_BROKER_PORT=$(freeport) bg n8n-main node "$N8N_BIN" start
MAIN_PID=$BG_PID
declare -A WPID
start_worker() { # start_worker I
	N8N_RUNNERS_BROKER_PORT=$(freeport) bg "n8n-worker$1" node "$N8N_BIN" worker --concurrency="$CONC"
	WPID[$1]=$BG_PID
	waitlog "$WORK/n8n-worker$1.log" "n8n worker is now ready" "$BG_PID" 120 || die "n8n worker $1 did not start (see $WORK/n8n-worker$1.log)"
}
waitlog "$WORK/n8n-main.log" "Editor is now accessible" "$MAIN_PID" 180 || die "n8n main did not start (see $WORK/n8n-main.log)"
for i in $(seq 1 "$WORKERS"); do start_worker "$i"; done
log "n8n main + $WORKERS worker(s) (concurrency $CONC each) in queue mode: $(ms "$t") ms"

PGURL="postgres://n8n@127.0.0.1:$PG_PORT/n8n"
executions() { NODE_PATH="$N8N_DIR/node_modules" node "$ROOT/scripts/e2e/scale/executions-pg.js" "$PGURL" >"$WORK/executions.json"; }
# wait_settled N SECONDS: until at least N executions exist and none is running.
wait_settled() {
	local end=$(($(date +%s) + $2)) n
	while [ "$(date +%s)" -lt "$end" ]; do
		executions
		n=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));const open=e.filter(x=>!x.stoppedAt||x.status==="running"||x.status==="new").length;console.log(open?0:e.length)' "$WORK/executions.json")
		[ "$n" -ge "$1" ] && return 0
		sleep 1
	done
	die "executions did not settle at $1 in $2 s"
}
# deliver_all EVENT FILE: deliver the webhooks of the "repo pr" lines of FILE
# at once. A delivery prscout answers 429 (PRSCOUT_WEBHOOK_MAX_INFLIGHT
# reached) is sent again after its Retry-After, one that failed with 5xx
# (nginx's 502 while a replica is down) after 1 s, as a sender's retry
# would; at most 5 times. FILE.retries gets "<429 retries> <5xx retries>".
deliver_all() {
	node -e '
const [ctl, event, file] = process.argv.slice(1);
const prs = require("fs").readFileSync(file, "utf8").trim().split("\n").map((l) => l.split(" "));
let retries = 0, failed = 0;
const one = async (r, p) => {
  for (let i = 0; ; i++) {
    const a = await (await fetch(`${ctl}/_fake/deliver?repo=${r}&pr=${p}&event=${event}`, { method: "POST" })).json();
    if ((a.status !== 429 && a.status < 500) || i === 5) return a;
    if (a.status === 429) retries++; else failed++;
    await new Promise((ok) => setTimeout(ok, 1000 * (a.status === 429 ? Number(a.retryAfter) || 1 : 1)));
  }
};
Promise.all(prs.map(([r, p]) => one(r, p))).then((all) => {
  require("fs").writeFileSync(file + ".retries", retries + " " + failed);
  const bad = all.filter((a) => a.status !== 202);
  if (bad.length) { console.error(JSON.stringify(bad.slice(0, 3))); process.exit(1); }
  console.log(all.length);
});' "$BB_CTL" "$1" "$2"
}

# --- 6. the burst, with the faults ---------------------------------------------------
node -e 'for (let r = 1; r <= 8; r++) for (let p = 1; p <= 5; p++) console.log(r + " " + p)' >"$WORK/all.txt"
log "burst: the webhooks of 40 pull requests at once"
BURST=$(now_ms)
# The deliveries run in the background: the faults hit while they arrive.
deliver_all pullrequest:created "$WORK/all.txt" >"$WORK/burst.out" &
DELIVER_PID=$!
PIDS+=("$DELIVER_PID")
if [ -n "$FAULTS" ]; then
	sleep 1
	node -e 'fetch(process.argv[1],{method:"POST"}).then(r=>process.exit(r.ok?0:1))' "$BB_CTL/_fake/throttle?seconds=30&every=4&retryAfter=2"
	fault throttle "$(now_ms)" "$(( $(now_ms) + 30000 ))"
	log "  fault: 429 window on (every 4th REST call, Retry-After: 2, 30 s)"
	sleep 2
	peak_rss 2
	k=$(now_ms)
	kill -KILL "${RPID[2]}"
	forget "${RPID[2]}"
	log "  fault: prscout replica 2 SIGKILLed"
	sleep 2
	start_prscout 2
	fault prscout-kill "$k" "$(now_ms)"
	log "  prscout replica 2 restarted after $(( $(now_ms) - k )) ms"
	sleep 3
	k=$(now_ms)
	kill -KILL -- "-${WPID[2]}"
	forget "${WPID[2]}"
	fault worker-kill "$k" "$k"
	log "  fault: n8n worker 2 SIGKILLed (with its task runner)"
	sleep 2
	start_worker 2
	log "  n8n worker 2 restarted after $(( $(now_ms) - k )) ms"
fi
wait "$DELIVER_PID" || die "a webhook delivery was not accepted (202)"
forget "$DELIVER_PID"
read -r R429 R5XX <"$WORK/all.txt.retries" || true # the file has no final newline
log "  $(cat "$WORK/burst.out") webhooks accepted (202) in $(( $(now_ms) - BURST )) ms; sent again: $R429 after prscout's 429 (PRSCOUT_WEBHOOK_MAX_INFLIGHT), $R5XX after a 5xx (a replica down)"
wait_settled 40 420
# Heads still open (their execution died with a worker) get their webhook again.
node -e '
const ctl = process.argv[1];
(async () => {
  const st = await (await fetch(ctl + "/_fake/state")).json();
  for (const p of st.prs) {
    const s = await (await fetch(`${ctl}/_fake/status?repo=${p.repo}&commit=${p.head}`)).json();
    const closed = p.repo === 8 ? ["STOPPED", "FAILED"] : ["SUCCESSFUL", "FAILED"];
    if (!s || !closed.includes(s.State)) console.log(p.repo + " " + p.id);
  }
})();' "$BB_CTL" >"$WORK/redeliver.txt"
REDELIVERED=$(grep -c . "$WORK/redeliver.txt" || true)
if [ "$REDELIVERED" -gt 0 ]; then
	log "  $REDELIVERED head(s) still open after the burst: their webhook again ($(tr '\n' ',' <"$WORK/redeliver.txt"))"
	executions
	have=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$WORK/executions.json")
	deliver_all pullrequest:updated "$WORK/redeliver.txt" >/dev/null || die "a redelivery was not accepted"
	wait_settled $((have + REDELIVERED)) 300
fi
BURST_END=$(now_ms)
log "burst settled: $(( BURST_END - BURST )) ms"

# --- 7. a push to half of them -----------------------------------------------------------
node -e 'for (let r = 1; r <= 8; r++) for (let p = 1; p <= 5; p++) if ((r + p) % 2 === 0) console.log(r + " " + p)' >"$WORK/push.txt"
executions
have=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$WORK/executions.json")
while read -r r p; do
	node -e 'fetch(process.argv[1],{method:"POST"}).then(r=>process.exit(r.ok?0:1))' "$BB_CTL/_fake/push?repo=$r&pr=$p"
done <"$WORK/push.txt"
PUSH_AT=$(now_ms)
log "push: 20 pull requests get a new commit, their webhooks at once"
deliver_all pullrequest:updated "$WORK/push.txt" >/dev/null || die "a push webhook was not accepted"
wait_settled $((have + 20)) 300
log "push settled: $(( $(now_ms) - PUSH_AT )) ms"

# --- 8. checks and report ------------------------------------------------------------------
for i in $(seq 1 "$REPLICAS"); do peak_rss "$i"; done
executions
log "fake LLM: $(node -e 'fetch(process.argv[1]).then(r=>r.json()).then(s=>console.log(JSON.stringify(s)))' "http://$(cat "$WORK/fakellm.addr")/stats"); redelivered after the burst: $REDELIVERED"
"$WORK/bin/scalecheck" -control "$BB_CTL" -executions "$WORK/executions.json" -faults "$WORK/faults.jsonl" \
	-push-at "$PUSH_AT" -redelivered "$WORK/redeliver.txt" -rss "$WORK/rss.txt" -mode "${MODE#--}" -summary "${PRSCOUT_SCALE_SUMMARY:-$WORK/summary.json}" ||
	die "scale checks failed"
echo "e2e-scale ${MODE#--}: PASS replicas=$REPLICAS workers=$WORKERS concurrency=$CONC webhook-retries=429:$R429,5xx:$R5XX redelivered=$REDELIVERED total=$(ms "$T0")ms"
