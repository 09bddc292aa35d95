#!/usr/bin/env bash
# End-to-end run of the shipped workflows (workflows/pr-review.json and
# workflows/pr-comments.json) in a real
# n8n 2.8.4 against prscout, all on loopback:
#
#   fake Bitbucket --signed webhook--> prscout /v1/webhooks/bitbucket --token--> n8n Webhook
#   n8n --> prscout /v1/context, /v1/needs, /v1/repository/batch, /v1/merge, /v1/comments
#   n8n --> prscout /v1/verify;  n8n --> fake OpenAI-compatible LLM (scout, review, verify, answer)
#   fake Bitbucket --signed comment event--> prscout --token--> n8n comment Webhook
#   n8n --> prscout /v1/thread, /v1/thread/answer
#   prscout --> fake Bitbucket, fake Jira
#
# prscout keeps a mirror of the repository (PRSCOUT_MIRROR_DIR), fetched from
# the fake Bitbucket over git's smart HTTP with the same token, and lists the
# context candidates it finds there.
#
# Steps: (1) PR 1 is reviewed: the context lists its candidates, bad scout
# paths refused, a missing file
# answered ok:false, one summary and two inline comments (one placed by its
# quoted code) on the right lines, the head's build status INPROGRESS then
# SUCCESSFUL and its Code Insights report with one annotation per finding
# (checked after every review; a skip adds no status, a re-sent comments
# request replaces the report); (2) the same PR's webhook again: n8n ends
# in "Skipped" (skipCode reviewed), nothing is posted twice, and re-sending the
# comments request changes nothing; (3) PR 2, whose scout needs nothing: the
# top candidates are fetched anyway and the chain goes on to one summary; (4) a webhook with a bad signature is refused
# and starts no execution; (5) a commit pushed to PR 1 is reviewed as a delta:
# the summary is edited in place and only the new finding is posted; review
# memory marks the fixed finding resolved (its inline thread resolved), the
# other still open, the new one new, and prints prscout_findings_total. PR 1
# links Jira issue SHOP-12 through its commit message (OPS-7 in its
# description is outside PRSCOUT_JIRA_PROJECTS): its three acceptance criteria
# are judged, and the summary shows the verdict table with links into the diff
# and the counts (1 met, 1 not met, 1 unclear; after the push 2 met, 1
# unclear). (6) PR 1 is merged and a late webhook arrives: skipped with that
# reason. (7) With prscout restarted at a small prompt budget, PR 3 is split
# into three review groups: n8n runs the scout and review once per group, one
# group's review call fails (the fake LLM answers 500), and one summary
# carries the other two groups' findings and names the failed group. (8) PR 4,
# whose review answer stops at the token limit in its third finding
# (finish_reason "length"): its two complete findings are posted inline,
# the summary says what was cut, nothing raw is shown. Every review so far
# has fewer than Config.verifyMinFindings findings: /v1/verify declines and
# no verify call is made. (9) PR 5 opened as a draft: skipped with skipCode
# draft and its reason, nothing posted, no model asked; marked ready (the
# fake flips its draft flag) and delivered as pullrequest:updated: reviewed,
# one summary. (10) PR 6 by renovate[bot]: skipped with skipCode bot_author,
# nothing posted. (11) With prscout restarted at PRSCOUT_INLINE_MAX=3, PR
# 7, whose review has 14 findings (3 without evidence, 5 low): n8n makes the
# verify call with Config.verifyModel, the fake LLM drops one finding by its
# title, and that finding is posted nowhere while the summary says the
# verify pass dropped 1 finding; the 3 high findings with evidence are
# posted inline, the other 7 verified ones are in the summary (past the
# budget or below the medium floor), the 3 unverified ones folded into the
# summary's "Unverified findings" list. Then the conversation workflow
# (workflows/pr-comments.json, PRSCOUT_COMMENT_FORWARD_URL) on PR 8, reviewed
# with two inline findings (12): (13) a reply "why is this a problem?" under
# one is a question: one answer call with Config.answerModel, whose prompt
# shows the finding, its code and the question, and exactly one reply in
# that thread, nothing else posted; (14) the same comment event delivered
# again ends in "Nothing to do" (already answered): still one answer;
# (15) "dismiss the value is validated by the caller" under the other
# resolves its thread, marks it dismissed with the reason in the summary's
# data and (PRSCOUT_LEARNINGS=on) proposes the reason as a rule for the
# finding's file: the review rules pull request opens with
# .prscout/rules.json; (16) that pull request merged (a commit on main in
# git and in the fake; PR 8's destination follows) and a push to PR 8: the
# delta review's prompt carries the rule, the model reports the dismissed
# finding again and it is posted nowhere, its thread stays resolved, review
# memory keeps it dismissed; (17) "prscout pause": the next push is skipped
# (skipCode paused); (18) "prscout resume": the next push is reviewed; (19) a comment by
# prscout's own account and one by a bot account: forwarded, and n8n ends in
# "Nothing to do" (own_comment, bot) with nothing posted and no model call.
# Then per-node times from n8n's execution data and one result line.
#
# Needs Go, Node 20 (>= 20.19), git and the npm registry (first run only);
# HTTP goes through Node's fetch (no curl).
# n8n is installed once with `npm ci` from scripts/e2e/n8n/ into
# ${PRSCOUT_N8N_CACHE:-$HOME/.cache/prscout-n8n} (outside the repository).
# Every process started here is stopped by its PID on exit.
# Knobs: PRSCOUT_N8N_CACHE (install folder), PRSCOUT_BIN (a prebuilt prscout
# to test instead of building this checkout), PRSCOUT_E2E_WORKFLOW (a workflow
# export to run instead of workflows/pr-review.json, e.g. one with a changed
# node), PRSCOUT_E2E_KEEP=1 (keep the work folder with all logs).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PRSCOUT_N8N_CACHE:-$HOME/.cache/prscout-n8n}
N8N_VERSION=2.8.4
T0=$(date +%s%N)
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
log() { printf '[e2e-n8n %6.1fs] %s\n' "$(echo "$(ms "$T0")" | awk '{print $1/1000}')" "$*"; }
die() { log "FAIL: $*"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prscout-e2e-n8n.XXXXXX")
PIDS=()
cleanup() {
	local rc=$?
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	if [ "$rc" -ne 0 ]; then
		log "logs kept in $WORK (prscout.log, n8n.log, fakebitbucket.log, fakellm.log, fakejira.log)"
	elif [ -z "${PRSCOUT_E2E_KEEP:-}" ]; then
		rm -rf "$WORK"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v node >/dev/null || die "node is required"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a===20&&b>=19||a>20&&a<=24?0:1)' ||
	die "n8n $N8N_VERSION needs Node >=20.19 <=24, found $(node --version)"

# --- 1. n8n, installed once per lockfile -------------------------------------
LOCK_SUM=$(cat "$ROOT/scripts/e2e/n8n/package.json" "$ROOT/scripts/e2e/n8n/package-lock.json" | sha256sum | cut -c1-12)
N8N_DIR="$CACHE/n8n-$N8N_VERSION-$LOCK_SUM"
N8N_BIN="$N8N_DIR/node_modules/n8n/bin/n8n"
t=$(date +%s%N)
if [ -f "$N8N_DIR/.installed" ] && [ -x "$N8N_BIN" ]; then
	INSTALL="cached"
else
	INSTALL="cold"
	log "installing n8n $N8N_VERSION into $N8N_DIR (about 4 min on 2 cores)"
	rm -rf "$N8N_DIR" && mkdir -p "$N8N_DIR"
	cp "$ROOT/scripts/e2e/n8n/package.json" "$ROOT/scripts/e2e/n8n/package-lock.json" "$N8N_DIR/"
	ok=""
	for attempt in 1 2; do
		# In the background so that an interrupted run stops npm by its PID too.
		(cd "$N8N_DIR" && exec npm ci --no-audit --no-fund --loglevel=error) >"$N8N_DIR/npm-ci.log" 2>&1 &
		PIDS+=($!)
		rc=0
		wait "$!" || rc=$?
		unset 'PIDS[${#PIDS[@]}-1]' # finished: its PID may be reused, never signal it
		if [ "$rc" -eq 0 ]; then
			ok=1
			break
		fi
		log "npm ci failed (attempt $attempt); tail of $N8N_DIR/npm-ci.log:"
		tail -5 "$N8N_DIR/npm-ci.log" || true
		rm -rf "$N8N_DIR/node_modules"
	done
	[ -n "$ok" ] || die "could not install n8n"
	touch "$N8N_DIR/.installed"
fi
INSTALL_MS=$(ms "$t")
log "n8n $N8N_VERSION install: $INSTALL, ${INSTALL_MS} ms"

# --- 2. build prscout and the fakes -------------------------------------------
t=$(date +%s%N)
mkdir -p "$WORK/bin"
if [ -n "${PRSCOUT_BIN:-}" ]; then # test a given prscout binary instead of this checkout's
	cp "$PRSCOUT_BIN" "$WORK/bin/prscout"
else
	(cd "$ROOT" && go build -o "$WORK/bin/prscout" ./cmd/prscout)
fi
(cd "$ROOT" && go build -o "$WORK/bin/fakebitbucket" ./scripts/e2e/fakebitbucket &&
	go build -o "$WORK/bin/fakellm" ./scripts/e2e/fakellm &&
	go build -o "$WORK/bin/fakejira" ./scripts/e2e/fakejira &&
	go build -o "$WORK/bin/e2echeck" ./scripts/e2e/e2echeck)
log "built prscout and fakes: $(ms "$t") ms"

freeport() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PRSCOUT_PORT=$(freeport)
N8N_PORT=$(freeport)
BROKER_PORT=$(freeport)
PRSCOUT="http://127.0.0.1:$PRSCOUT_PORT"
N8N="http://127.0.0.1:$N8N_PORT"
HOOK_PATH=prscout-review
COMMENT_HOOK_PATH=prscout-comments
rand() { node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))'; }
API_KEY=$(rand) LLM_KEY=$(rand) FORWARD_TOKEN=$(rand) WEBHOOK_SECRET=$(rand) BB_TOKEN=$(rand) JIRA_PAT=$(rand)

# HTTP with Node's fetch: the script needs no curl.
http_ok() { node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"; }
http_post() { # prints the body; fails on a non-2xx status
	node -e 'fetch(process.argv[1],{method:"POST"}).then(async r=>{const t=await r.text();if(!r.ok){console.error(r.status+" "+t);process.exit(1)}process.stdout.write(t)},e=>{console.error(e.message);process.exit(1)})' "$1"
}
waitfile() { for _ in $(seq 1 300); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
json() { node -e 'const o=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(process.argv[2].split(".").reduce((a,k)=>a[k],o))' "$@"; }

# --- 3. fakes and prscout -----------------------------------------------------
"$WORK/bin/fakebitbucket" -state-file "$WORK/fakebitbucket.json" -token "$BB_TOKEN" \
	-webhook-url "$PRSCOUT/v1/webhooks/bitbucket" -webhook-secret "$WEBHOOK_SECRET" >"$WORK/fakebitbucket.log" 2>&1 &
PIDS+=($!)
"$WORK/bin/fakellm" -addr-file "$WORK/fakellm.addr" -log "$WORK/llm-requests.jsonl" -key "$LLM_KEY" >"$WORK/fakellm.log" 2>&1 &
PIDS+=($!)
"$WORK/bin/fakejira" -addr-file "$WORK/fakejira.addr" -pat "$JIRA_PAT" >"$WORK/fakejira.log" 2>&1 &
PIDS+=($!)
waitfile "$WORK/fakebitbucket.json" || die "fake Bitbucket did not start"
waitfile "$WORK/fakejira.addr" || die "fake Jira did not start"
JIRA=$(cat "$WORK/fakejira.addr")
waitfile "$WORK/fakellm.addr" || die "fake LLM did not start"
BB_API=$(json "$WORK/fakebitbucket.json" api)
BB_CTL=$(json "$WORK/fakebitbucket.json" control)
LLM_BASE="http://$(cat "$WORK/fakellm.addr")/v1"

# start_prscout [VAR=value...]: prscout on its port, extra settings given as
# environment assignments; PRSCOUT_PID is its PID.
start_prscout() {
	env "$@" PRSCOUT_ADDR="127.0.0.1:$PRSCOUT_PORT" PRSCOUT_API_KEYS="$API_KEY" PRSCOUT_LOG_FORMAT=text \
		PRSCOUT_BITBUCKET_BASE_URL="$BB_API" PRSCOUT_BITBUCKET_ACCESS_TOKEN="$BB_TOKEN" \
		PRSCOUT_WEBHOOK_SECRET="$WEBHOOK_SECRET" PRSCOUT_FORWARD_URL="$N8N/webhook/$HOOK_PATH" \
		PRSCOUT_COMMENT_FORWARD_URL="$N8N/webhook/$COMMENT_HOOK_PATH" PRSCOUT_LEARNINGS=on \
		PRSCOUT_FORWARD_TOKEN="$FORWARD_TOKEN" PRSCOUT_UPSTREAM_RETRIES=1 PRSCOUT_MIRROR_DIR="$WORK/mirrors" \
		PRSCOUT_JIRA_BASE_URL="$JIRA" PRSCOUT_JIRA_PAT="$JIRA_PAT" PRSCOUT_JIRA_PROJECTS=SHOP \
		"$WORK/bin/prscout" serve >>"$WORK/prscout.log" 2>&1 &
	PRSCOUT_PID=$!
	PIDS+=("$PRSCOUT_PID")
	for _ in $(seq 1 100); do http_ok "$PRSCOUT/readyz" && break; sleep 0.1; done
	http_ok "$PRSCOUT/readyz" || die "prscout is not ready (see $WORK/prscout.log)"
}
# stop_prscout: stops the prscout started last, by its PID, and forgets it.
stop_prscout() {
	kill -TERM "$PRSCOUT_PID" 2>/dev/null || true
	for _ in $(seq 1 100); do kill -0 "$PRSCOUT_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$PRSCOUT_PID" 2>/dev/null && die "prscout did not stop"
	local keep=()
	for pid in "${PIDS[@]}"; do [ "$pid" = "$PRSCOUT_PID" ] || keep+=("$pid"); done
	PIDS=("${keep[@]}")
}
start_prscout

# --- 4. n8n: credentials and the shipped workflow, imported headlessly ----------
export N8N_USER_FOLDER="$WORK/n8n" N8N_PORT N8N_LISTEN_ADDRESS=127.0.0.1 N8N_HOST=127.0.0.1 \
	N8N_PROTOCOL=http N8N_SECURE_COOKIE=false N8N_DIAGNOSTICS_ENABLED=false N8N_DIAGNOSTICS_CONFIG_FRONTEND= \
	N8N_DIAGNOSTICS_CONFIG_BACKEND= N8N_PERSONALIZATION_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false \
	N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED=false N8N_TEMPLATES_ENABLED=false N8N_HIRING_BANNER_ENABLED=false \
	N8N_DYNAMIC_BANNERS_ENABLED=false N8N_AI_ENABLED=false N8N_LICENSE_AUTO_RENEW_ENABLED=false \
	N8N_COMMUNITY_PACKAGES_ENABLED=false EXTERNAL_FRONTEND_HOOKS_URLS= N8N_ENCRYPTION_KEY="$(rand)" \
	N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1 N8N_RUNNERS_BROKER_PORT="$BROKER_PORT" \
	N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=false N8N_LOG_LEVEL=info
mkdir -p "$N8N_USER_FOLDER"
# The credentials a user creates before importing (workflows/README.md), by the names the workflows give.
node "$ROOT/deploy/n8n-credentials.js" "$WORK/creds.json" "$API_KEY" "$LLM_KEY" "$LLM_BASE" "$FORWARD_TOKEN" >/dev/null
# The shipped workflows (or PRSCOUT_E2E_WORKFLOW instead of the review one)
# with their Config nodes edited as a user would, imported in one call.
WF_SRC=${PRSCOUT_E2E_WORKFLOW:-$ROOT/workflows/pr-review.json}
CWF_SRC=$ROOT/workflows/pr-comments.json
[ -f "$WF_SRC" ] || die "no workflow export at $WF_SRC"
[ -f "$CWF_SRC" ] || die "no workflow export at $CWF_SRC"
node -e '
const fs = require("fs");
const [src, csrc, out, cout, both, prscout, llm] = process.argv.slice(1);
const edit = (file, set) => {
  const wf = JSON.parse(fs.readFileSync(file));
  const cfg = wf.nodes.find((n) => n.name === "Config");
  for (const a of cfg.parameters.assignments.assignments) if (a.name in set) a.value = set[a.name];
  return wf;
};
const wf = edit(src, { prscoutUrl: prscout, llmBaseUrl: llm, scoutModel: "e2e-scout", reviewModel: "e2e-review", verifyModel: "e2e-verify" });
const cwf = edit(csrc, { prscoutUrl: prscout, llmBaseUrl: llm, answerModel: "e2e-answer" });
fs.writeFileSync(out, JSON.stringify(wf));
fs.writeFileSync(cout, JSON.stringify(cwf));
fs.writeFileSync(both, JSON.stringify([wf, cwf]));' "$WF_SRC" "$CWF_SRC" "$WORK/workflow.json" "$WORK/comments-workflow.json" "$WORK/workflows.json" "$PRSCOUT" "$LLM_BASE"
WF_ID=$(json "$WORK/workflow.json" id)
CWF_ID=$(json "$WORK/comments-workflow.json" id)
t=$(date +%s%N)
node "$N8N_BIN" import:credentials --input="$WORK/creds.json" >>"$WORK/n8n-cli.log" 2>&1 || die "import:credentials failed (see $WORK/n8n-cli.log)"
node "$N8N_BIN" import:workflow --input="$WORK/workflows.json" >>"$WORK/n8n-cli.log" 2>&1 || die "import:workflow failed (see $WORK/n8n-cli.log)"
for id in "$WF_ID" "$CWF_ID"; do
	node "$N8N_BIN" publish:workflow --id="$id" >>"$WORK/n8n-cli.log" 2>&1 || die "publish:workflow $id failed (see $WORK/n8n-cli.log)"
done
IMPORT_MS=$(ms "$t")
log "imported credentials and workflows $WF_ID, $CWF_ID: $IMPORT_MS ms"

t=$(date +%s%N)
node "$N8N_BIN" start >"$WORK/n8n.log" 2>&1 &
PIDS+=($!)
N8N_PID=$!
for _ in $(seq 1 1200); do
	grep -q "Editor is now accessible" "$WORK/n8n.log" && break
	kill -0 "$N8N_PID" 2>/dev/null || { tail -20 "$WORK/n8n.log"; die "n8n exited"; }
	sleep 0.1
done
grep -q "Editor is now accessible" "$WORK/n8n.log" || die "n8n did not start in 120 s (see $WORK/n8n.log)"
N8N_START_MS=$(ms "$t")
log "n8n started: $N8N_START_MS ms"

DB="$N8N_USER_FOLDER/.n8n/database.sqlite"
executions() { NODE_PATH="$N8N_DIR/node_modules" node "$ROOT/scripts/e2e/n8n-executions.js" "$DB" >"$WORK/executions.json"; }
# wait_finished N: until N executions have ended (any status), at most 300 s.
wait_finished() {
	for _ in $(seq 1 600); do
		executions
		n=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e.filter(x=>x.stoppedAt&&x.status!=="running"&&x.status!=="new").length)' "$WORK/executions.json")
		[ "$n" -ge "$1" ] && return 0
		sleep 0.5
	done
	die "n8n execution $1 did not finish in 300 s"
}
deliver() { # deliver PR EVENT [badsig]: Bitbucket delivers the webhook to prscout
	http_post "$BB_CTL/_fake/deliver?pr=$1&event=$2${3:+&badsig=1}"
}
check() { "$WORK/bin/e2echeck" -control "$BB_CTL" -jira "$JIRA" -executions "$WORK/executions.json" -llm-log "$WORK/llm-requests.jsonl" \
	-prscout "$PRSCOUT" -api-key "$API_KEY" -workflow "$WF_SRC" -comment-workflow-id "$CWF_ID" "$@"; }
last_ms() { node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json"; }
expect_status() { # expect_status WANT JSON
	got=$(node -e 'console.log(JSON.parse(process.argv[1]).status)' "$2")
	[ "$got" = "$1" ] || die "webhook delivery answered $got, want $1: $2"
}

# --- 5. the steps ---------------------------------------------------------------
log "step 1: PR 1 opened -> full review"
expect_status 202 "$(deliver 1 pullrequest:created)"
wait_finished 1
check -step review -creates 3 -show
REVIEW_MS=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json")

log "step 2: PR 1 webhook again (same head) -> skip, nothing posted twice"
expect_status 202 "$(deliver 1 pullrequest:updated)"
wait_finished 2
check -step skip -creates 3
SKIP_MS=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json")

log "step 3: PR 2 opened, scout needs nothing -> review goes on"
expect_status 202 "$(deliver 2 pullrequest:created)"
wait_finished 3
check -step empty-needs -creates 4
EMPTY_MS=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json")

log "step 4: a webhook with a bad signature is refused before n8n"
expect_status 401 "$(deliver 1 pullrequest:updated badsig)"
sleep 2
executions
n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$WORK/executions.json")
[ "$n" -eq 3 ] || die "a badly signed webhook started an n8n execution ($n executions)"
log "  ok   no execution started"

log "step 5: a commit pushed to PR 1 -> delta review, summary edited in place"
http_post "$BB_CTL/_fake/push?pr=1" >/dev/null
expect_status 202 "$(deliver 1 pullrequest:updated)"
wait_finished 4
check -step push -creates 5 -updates 1 -show
DELTA_MS=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json")

log "step 6: PR 1 merged, a late webhook -> skipped with the reason"
http_post "$BB_CTL/_fake/state?pr=1&state=MERGED" >/dev/null
expect_status 202 "$(deliver 1 pullrequest:updated)"
wait_finished 5
check -step merged -creates 5 -updates 1

log "step 7: PR 3 at a small prompt budget -> three review groups, one review call fails"
stop_prscout
start_prscout PRSCOUT_MAX_PROMPT_CHARS="$("$WORK/bin/e2echeck" -print-groups-budget)"
expect_status 202 "$(deliver 3 pullrequest:created)"
wait_finished 6
check -step groups -creates 8 -updates 1 -show
GROUPS_MS=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json")

log "step 8: PR 4 opened, the review model stops at its token limit in its third finding"
expect_status 202 "$(deliver 4 pullrequest:created)"
wait_finished 7
check -step cut-review -creates 11 -updates 1 -show
CUT_MS=$(node -e 'const e=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(e[e.length-1].wallMs)' "$WORK/executions.json")

log "step 9: PR 5 opened as a draft -> skipped (draft), nothing posted; marked ready -> reviewed"
expect_status 202 "$(deliver 5 pullrequest:created)"
wait_finished 8
check -step draft -creates 11 -updates 1
DRAFT_MS=$(last_ms)
http_post "$BB_CTL/_fake/draft?pr=5&draft=false" >/dev/null
expect_status 202 "$(deliver 5 pullrequest:updated)"
wait_finished 9
check -step ready -creates 12 -updates 1
READY_MS=$(last_ms)

log "step 10: PR 6 opened by renovate[bot] -> skipped (bot_author), nothing posted"
expect_status 202 "$(deliver 6 pullrequest:created)"
wait_finished 10
check -step bot -creates 12 -updates 1
BOT_MS=$(last_ms)

log "step 11: PR 7 reviewed with 14 findings at an inline budget of $("$WORK/bin/e2echeck" -print-busy-inline-max) -> the verify call drops one, few inline"
stop_prscout
start_prscout PRSCOUT_INLINE_MAX="$("$WORK/bin/e2echeck" -print-busy-inline-max)"
expect_status 202 "$(deliver 7 pullrequest:created)"
wait_finished 11
check -step busy -creates 16 -updates 1 -show
BUSY_MS=$(last_ms)

# --- 6. conversations: the comment workflow on PR 8 -----------------------------
urlq() { node -e 'console.log(encodeURIComponent(process.argv[1]))' "$1"; }
# reply PR AS WHERE TEXT: a comment by AS (human, self, bot) as a reply
# (WHERE: under=<finding text> or parent=<id>; "" a general comment), its
# comment_created event delivered; prints the control API's answer.
reply() { http_post "$BB_CTL/_fake/reply?pr=$1&as=$2&${3:+$3&}body=$(urlq "$4")"; }
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$1" "$2"; }
T_CONVO=$(date +%s%N)

log "step 12: PR 8 opened -> reviewed, two findings inline"
expect_status 202 "$(deliver 8 pullrequest:created)"
wait_finished 12
check -step convo-review -show

log "step 13: a reply under a finding asks a question -> one answer in that thread, nothing else posted"
out=$(reply 8 human "under=$(urlq "Decode error ignored")" "why is this a problem?")
expect_status 202 "$out"
Q_ID=$(field "$out" commentId)
wait_finished 13
check -step convo-question -comment "$Q_ID"
QUESTION_MS=$(last_ms)

log "step 14: the same comment event delivered again -> the relay drops the copy; after a restart (no replay memory) it reaches n8n: still one answer"
out=$(http_post "$BB_CTL/_fake/deliver?pr=8&event=pullrequest:comment_created&comment=$Q_ID")
expect_status 202 "$out"
[ "$(node -e 'console.log(JSON.parse(JSON.parse(process.argv[1]).body).status)' "$out")" = duplicate ] ||
	die "the relay forwarded a copy of a delivery it had forwarded: $out"
log "  ok   prscout's relay answered the copy as a duplicate"
stop_prscout
start_prscout
expect_status 202 "$(http_post "$BB_CTL/_fake/deliver?pr=8&event=pullrequest:comment_created&comment=$Q_ID")"
wait_finished 14
check -step convo-duplicate -comment "$Q_ID"
executions
n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$WORK/executions.json")
[ "$n" -eq 14 ] || die "the copies of one comment event started $((n - 13)) executions, want 1 ($n executions)"

log "step 15: dismiss under the other finding -> thread resolved, dismissed with the reason in the summary's data, the reason proposed as a rule on the review rules PR"
out=$(reply 8 human "under=$(urlq "Note text sliced")" "dismiss the value is validated by the caller")
expect_status 202 "$out"
D_ID=$(field "$out" commentId)
wait_finished 15
check -step convo-dismiss -comment "$D_ID"
DISMISS_MS=$(last_ms)
RULES_PR=$(node -e 'fetch(process.argv[1]).then(r=>r.json()).then(ps=>console.log(ps.find(p=>p.source==="prscout/review-rules"&&p.state==="OPEN").id))' "$BB_CTL/_fake/pullrequests")

log "step 16: rules PR $RULES_PR merged, a push to PR 8 -> the rule in the review prompt, the dismissed finding not re-reported"
http_post "$BB_CTL/_fake/merge?pr=$RULES_PR" >/dev/null
http_post "$BB_CTL/_fake/commit?pr=8&path=internal/api/notes.go" >/dev/null
expect_status 202 "$(deliver 8 pullrequest:updated)"
wait_finished 16
check -step convo-push
RULED_MS=$(last_ms)

log "step 17: prscout pause -> the next push is skipped with the reason"
out=$(reply 8 human "" "prscout pause")
expect_status 202 "$out"
wait_finished 17
check -step convo-pause -comment "$(field "$out" commentId)"
http_post "$BB_CTL/_fake/commit?pr=8" >/dev/null
expect_status 202 "$(deliver 8 pullrequest:updated)"
wait_finished 18
check -step convo-paused
PAUSED_MS=$(last_ms)

log "step 18: prscout resume -> the next push is reviewed"
out=$(reply 8 human "" "prscout resume")
expect_status 202 "$out"
wait_finished 19
check -step convo-resume -comment "$(field "$out" commentId)"
http_post "$BB_CTL/_fake/commit?pr=8&path=internal/api/notes.go" >/dev/null
expect_status 202 "$(deliver 8 pullrequest:updated)"
wait_finished 20
check -step convo-resumed

log "step 19: comments by prscout itself and by a bot account -> nothing done"
out=$(reply 8 self "under=$(urlq "Decode error ignored")" "prscout help")
expect_status 202 "$out"
wait_finished 21
check -step convo-ignored -comment "$(field "$out" commentId)" -outcome own_comment
out=$(reply 8 bot "under=$(urlq "Decode error ignored")" "prscout help")
expect_status 202 "$out"
wait_finished 22
check -step convo-ignored -comment "$(field "$out" commentId)" -outcome bot
CONVO_MS=$(ms "$T_CONVO")

log "per-node execution times (n8n execution data: start offset, execution time):"
check -step timings

log "git requests prscout's mirror made to the fake Bitbucket: $(node -e 'fetch(process.argv[1]).then(r=>r.json()).then(c=>console.log("info/refs "+c.git_info_refs+", upload-pack "+c.git_upload_pack))' "$BB_CTL/_fake/calls")"

echo "e2e-n8n: PASS install=$INSTALL:${INSTALL_MS}ms import=${IMPORT_MS}ms n8n-start=${N8N_START_MS}ms review=${REVIEW_MS}ms skip=${SKIP_MS}ms empty-needs=${EMPTY_MS}ms delta=${DELTA_MS}ms groups=${GROUPS_MS}ms cut-review=${CUT_MS}ms draft=${DRAFT_MS}ms ready=${READY_MS}ms bot=${BOT_MS}ms busy=${BUSY_MS}ms question=${QUESTION_MS}ms dismiss=${DISMISS_MS}ms ruled-push=${RULED_MS}ms paused=${PAUSED_MS}ms conversations=${CONVO_MS}ms total=$(ms "$T0")ms"
