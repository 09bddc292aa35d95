#!/usr/bin/env bash
# The editor path of workflows/README.md, in a real browser against a real
# n8n 2.8.4: Debian's chromium (installed here with apt-get when missing; no
# browser download) driven headless by playwright-core
# (scripts/e2e/browser/editor.mjs):
#   1. the three credentials created in n8n's UI, by the README's names and
#      types;
#   2. Workflows → Import from File, for pr-review.json and pr-comments.json;
#      every node must come out linked to its credential;
#   3. each workflow published without opening or editing a node (Config
#      keeps its defaults: prscout on 127.0.0.1:8080, the model on
#      127.0.0.1:11434);
#   4. a screenshot of each at fit-to-view, kept in artifacts/browser/
#      (git-ignored; PRSCOUT_BROWSER_ARTIFACTS elsewhere);
#   5. one review through the published workflow: the fake Bitbucket's
#      signed webhook to prscout, forwarded to n8n, which ends in "Review
#      posted" with the fake model's findings.
# Steps 1-5 run in namespaces of their own (unshare -n -p): only loopback
# exists, so Config's default ports are free and nothing leaves the machine;
# every process started is stopped by its PID, and none outlives the
# namespace.
# Needs Go, Node 20 (>= 20.19), git, unshare and ip; npm and apt on a first run.
# Knobs: PRSCOUT_N8N_CACHE, PRSCOUT_BROWSER_CACHE (install folders),
# PRSCOUT_BROWSER_ARTIFACTS, PRSCOUT_E2E_KEEP=1 (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
T0=$(date +%s%N)
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
log() { printf '[e2e-browser %6.1fs] %s\n' "$(echo "$(ms "$T0")" | awk '{print $1/1000}')" "$*"; }
die() { log "FAIL: $*"; exit 1; }

# cached_npm SRC PREFIX: installs the pinned package.json + lockfile of SRC
# once into the cache folder PREFIX-<hash of both>; prints that folder.
cached_npm() {
	local sum dir
	sum=$(cat "$1/package.json" "$1/package-lock.json" | sha256sum | cut -c1-12)
	dir="$2-$sum"
	if [ ! -f "$dir/.installed" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		cp "$1/package.json" "$1/package-lock.json" "$dir/"
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm-ci.log" 2>&1 ||
			{ tail -5 "$dir/npm-ci.log" >&2; return 1; }
		touch "$dir/.installed"
	fi
	echo "$dir"
}

if [ "${1:-}" != --inner ]; then
	# --- outside the namespace: what needs the network --------------------------
	command -v node >/dev/null || die "node is required"
	node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a===20&&b>=19||a>20&&a<=24?0:1)' ||
		die "n8n 2.8.4 needs Node >=20.19 <=24, found $(node --version)"
	command -v unshare >/dev/null && command -v ip >/dev/null || die "unshare and ip are required"
	if [ ! -x /usr/bin/chromium ]; then
		log "installing Debian's chromium (apt-get)"
		apt-get install -y --no-install-recommends chromium >/dev/null || die "apt-get install chromium failed"
	fi
	log "$(/usr/bin/chromium --version 2>/dev/null | head -1)"
	t=$(date +%s%N)
	N8N_DIR=$(cached_npm "$ROOT/scripts/e2e/n8n" "${PRSCOUT_N8N_CACHE:-$HOME/.cache/prscout-n8n}/n8n-2.8.4") || die "could not install n8n"
	PW_DIR=$(cached_npm "$ROOT/scripts/e2e/browser" "${PRSCOUT_BROWSER_CACHE:-$HOME/.cache/prscout-browser}/pw") || die "could not install playwright-core"
	log "n8n and playwright-core ready: $(ms "$t") ms"
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/prscout-e2e-browser.XXXXXX")
	mkdir -p "$WORK/bin"
	(cd "$ROOT" && go build -o "$WORK/bin/prscout" ./cmd/prscout && go build -o "$WORK/bin/fakebitbucket" ./scripts/e2e/fakebitbucket &&
		go build -o "$WORK/bin/fakellm" ./scripts/e2e/fakellm) || die "build failed"
	rc=0
	WORK=$WORK N8N_DIR=$N8N_DIR PW_DIR=$PW_DIR T0=$T0 unshare -n -p -f -m --mount-proc bash "$0" --inner || rc=$?
	if [ "$rc" -ne 0 ] || [ -n "${PRSCOUT_E2E_KEEP:-}" ]; then
		log "logs kept in $WORK"
	else
		rm -rf "$WORK"
	fi
	exit "$rc"
fi

# --- inside the namespace: only loopback ---------------------------------------
ip link set lo up
ART=${PRSCOUT_BROWSER_ARTIFACTS:-$ROOT/artifacts/browser}
mkdir -p "$ART"
rm -f "$ART"/*.png "$ART"/*.json
PIDS=()
cleanup() {
	local rc=$?
	for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rand() { node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))'; }
http_ok() { node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"; }
waitfile() { for _ in $(seq 1 300); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
json() { node -e 'const o=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(process.argv[2].split(".").reduce((a,k)=>a[k],o))' "$@"; }
API_KEY=$(rand) LLM_KEY=$(rand) FORWARD_TOKEN=$(rand) WEBHOOK_SECRET=$(rand) BB_TOKEN=$(rand)
# Config's defaults, unedited: prscout and the model where they say.
PRSCOUT=http://127.0.0.1:8080 N8N=http://127.0.0.1:5678

"$WORK/bin/fakebitbucket" -state-file "$WORK/fakebitbucket.json" -token "$BB_TOKEN" \
	-webhook-url "$PRSCOUT/v1/webhooks/bitbucket" -webhook-secret "$WEBHOOK_SECRET" >"$WORK/fakebitbucket.log" 2>&1 &
PIDS+=($!)
"$WORK/bin/fakellm" -addr 127.0.0.1:11434 -addr-file "$WORK/fakellm.addr" -log "$WORK/llm-requests.jsonl" -key "$LLM_KEY" >"$WORK/fakellm.log" 2>&1 &
PIDS+=($!)
waitfile "$WORK/fakebitbucket.json" || die "fake Bitbucket did not start"
waitfile "$WORK/fakellm.addr" || die "fake LLM did not start"
BB_API=$(json "$WORK/fakebitbucket.json" api)
BB_CTL=$(json "$WORK/fakebitbucket.json" control)
PRSCOUT_ADDR=127.0.0.1:8080 PRSCOUT_API_KEYS="$API_KEY" PRSCOUT_LOG_FORMAT=text \
	PRSCOUT_BITBUCKET_BASE_URL="$BB_API" PRSCOUT_BITBUCKET_ACCESS_TOKEN="$BB_TOKEN" \
	PRSCOUT_WEBHOOK_SECRET="$WEBHOOK_SECRET" PRSCOUT_FORWARD_URL="$N8N/webhook/prscout-review" \
	PRSCOUT_COMMENT_FORWARD_URL="$N8N/webhook/prscout-comments" PRSCOUT_FORWARD_TOKEN="$FORWARD_TOKEN" \
	PRSCOUT_UPSTREAM_RETRIES=1 PRSCOUT_MIRROR_DIR="$WORK/mirrors" \
	"$WORK/bin/prscout" serve >"$WORK/prscout.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do http_ok "$PRSCOUT/readyz" && break; sleep 0.1; done
http_ok "$PRSCOUT/readyz" || die "prscout is not ready (see $WORK/prscout.log)"

export N8N_USER_FOLDER="$WORK/n8n" N8N_PORT=5678 N8N_LISTEN_ADDRESS=127.0.0.1 N8N_HOST=127.0.0.1 \
	N8N_PROTOCOL=http N8N_SECURE_COOKIE=false N8N_DIAGNOSTICS_ENABLED=false N8N_DIAGNOSTICS_CONFIG_FRONTEND= \
	N8N_DIAGNOSTICS_CONFIG_BACKEND= N8N_PERSONALIZATION_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false \
	N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED=false N8N_TEMPLATES_ENABLED=false N8N_HIRING_BANNER_ENABLED=false \
	N8N_DYNAMIC_BANNERS_ENABLED=false N8N_AI_ENABLED=false N8N_LICENSE_AUTO_RENEW_ENABLED=false \
	N8N_COMMUNITY_PACKAGES_ENABLED=false EXTERNAL_FRONTEND_HOOKS_URLS= N8N_ENCRYPTION_KEY="$(rand)" \
	N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1 N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=false N8N_LOG_LEVEL=info
mkdir -p "$N8N_USER_FOLDER"
t=$(date +%s%N)
node "$N8N_DIR/node_modules/n8n/bin/n8n" start >"$WORK/n8n.log" 2>&1 &
N8N_PID=$!
PIDS+=("$N8N_PID")
for _ in $(seq 1 1200); do
	grep -q "Editor is now accessible" "$WORK/n8n.log" && break
	kill -0 "$N8N_PID" 2>/dev/null || { tail -20 "$WORK/n8n.log"; die "n8n exited"; }
	sleep 0.1
done
grep -q "Editor is now accessible" "$WORK/n8n.log" || die "n8n did not start in 120 s (see $WORK/n8n.log)"
log "n8n started: $(ms "$t") ms"

# 1-4: the editor, in chromium.
t=$(date +%s%N)
PLAYWRIGHT_CORE="$PW_DIR/node_modules/playwright-core/index.mjs" N8N_URL="$N8N" ARTIFACTS="$ART" BROWSER_PROFILE="$WORK/chromium-profile" \
	WORKFLOW_FILES="$ROOT/workflows/pr-review.json,$ROOT/workflows/pr-comments.json" \
	PRSCOUT_API_KEY="$API_KEY" LLM_API_KEY="$LLM_KEY" LLM_BASE_URL="http://127.0.0.1:11434/v1" FORWARD_TOKEN="$FORWARD_TOKEN" \
	node "$ROOT/scripts/e2e/browser/editor.mjs" | tee "$WORK/editor.jsonl" | while read -r line; do log "  $line"; done
[ "${PIPESTATUS[0]}" -eq 0 ] || die "the editor path failed (screenshot: $ART/failure.png)"
log "editor: credentials created, both workflows imported and published: $(ms "$t") ms"

# 5: one review through the published review workflow.
t=$(date +%s%N)
node -e 'fetch(process.argv[1],{method:"POST"}).then(async r=>{const t=await r.text();if(!r.ok){console.error(r.status+" "+t);process.exit(1)}})' \
	"$BB_CTL/_fake/deliver?pr=1&event=pullrequest:created" || die "the webhook delivery failed (see $WORK/prscout.log)"
DB="$N8N_USER_FOLDER/.n8n/database.sqlite"
for _ in $(seq 1 600); do
	NODE_PATH="$N8N_DIR/node_modules" node "$ROOT/scripts/e2e/n8n-executions.js" "$DB" >"$WORK/executions.json"
	node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));process.exit(e.some(x=>x.stoppedAt)?0:1)' "$WORK/executions.json" && break
	sleep 0.5
done
node -e '
const e = JSON.parse(require("fs").readFileSync(process.argv[1]));
const x = e.find((x) => x.stoppedAt);
if (!x) { console.error("no execution finished in 300 s"); process.exit(1); }
const out = (x.nodes.find((n) => n.name === "Review posted") || {}).output || {};
console.log(JSON.stringify({ status: x.status, lastNode: x.lastNode, error: x.error, review: out }));
process.exit(x.status === "success" && x.lastNode === "Review posted" && out.status === "reviewed" ? 0 : 1);
' "$WORK/executions.json" >"$WORK/review.json" || { cat "$WORK/review.json"; die "the review did not end in Review posted (see $WORK/executions.json)"; }
log "review through the published workflow: $(cat "$WORK/review.json") in $(ms "$t") ms"
log "ok: screenshots in $ART ($(ls "$ART"/*.png | xargs -n1 basename | tr '\n' ' '))"
