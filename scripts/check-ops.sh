#!/usr/bin/env bash
# Checks the operations files against a live prscout, on loopback only:
#   1. builds prscout, serves this checkout (local git provider), drives the
#      five stages, the gate and a keep-alive call;
#   2. `promtool check metrics` on the live /metrics;
#   3. `promtool check rules ops/prometheus-alerts.yml`;
#   4. starts Debian's prometheus scraping prscout every second with the rules
#      loaded and queries its HTTP API for prscout's series and rule health.
# Needs promtool and prometheus: ./scripts/install-ops-tools.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v promtool >/dev/null && command -v prometheus >/dev/null || { echo "run ./scripts/install-ops-tools.sh first" >&2; exit 2; }

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

go build -o "$tmp/prscout" ./cmd/prscout
P=127.0.0.1:$(free_port)
PRSCOUT_ADDR=$P PRSCOUT_LOCAL_ROOT=$PWD "$tmp/prscout" serve >"$tmp/prscout.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -fs "http://$P/healthz" >/dev/null && break; sleep 0.1; done

# post PATH BODYFILE [curl args]: the answer goes to stdout.
post() { curl -s -X POST "http://$P$1" -H 'Content-Type: application/json' -H 'X-Request-Id: check-ops' "${@:3}" --data-binary "@$2"; }
head=$(git rev-parse HEAD); base=$(git rev-parse HEAD~1)
jq -n --arg b "$base" --arg h "$head" '{workspace:"w", repoSlug:"r", base:$b, head:$h}' >"$tmp/ctx.in"
post /v1/context "$tmp/ctx.in" >"$tmp/ctx.json"
scout='{"files":[{"path":"README.md","needs":[{"op":"get_file","path":"go.mod"},{"op":"list_dir","path":"api"},{"op":"get_file","path":"../etc/passwd"},{"op":"get_file","path":".env"}]}]}'
jq -n --arg h "$head" --arg s "$scout" '{workspace:"w", repoSlug:"r", ref:$h, scout:$s}' >"$tmp/needs.in"
post /v1/needs "$tmp/needs.in" >"$tmp/needs.json"
post /v1/repository/batch "$tmp/needs.json" >"$tmp/batch.json"
post /v1/repository/batch "$tmp/needs.json" >/dev/null
jq -n --slurpfile c "$tmp/ctx.json" --slurpfile b "$tmp/batch.json" '{context:$c[0], results:$b[0].results}' >"$tmp/merge.in"
post /v1/merge "$tmp/merge.in" -H 'Accept: application/x-ndjson' >/dev/null
jq -n --arg h "$head" '{workspace:"w", repoSlug:"r", ref:$h, dryRun:true, review:"{\"summary\":\"ok\",\"findings\":[]}"}' >"$tmp/comments.in"
post /v1/comments "$tmp/comments.in" >/dev/null
post /v1/workflows/validate cmd/prscout/testdata/validate/good/review.json >/dev/null
echo "traffic: context mode $(jq -r .mode "$tmp/ctx.json"), batch $(jq -c .stats "$tmp/batch.json")"

echo "== promtool check metrics (live http://$P/metrics)"
curl -s "http://$P/metrics" | promtool check metrics && echo "  SUCCESS: no lint problems"
echo "== promtool check rules"
promtool check rules ops/prometheus-alerts.yml

echo "== prometheus scrape"
W=127.0.0.1:$(free_port)
cat >"$tmp/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$PWD/ops/prometheus-alerts.yml"]
scrape_configs:
  - job_name: prscout
    static_configs: [{targets: ["$P"]}]
YAML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" --web.listen-address="$W" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
q() { curl -s "http://$W/api/v1/query" --data-urlencode "query=$1"; }
for _ in $(seq 120); do
	[ "$(q 'up{job="prscout"}' | jq -r '.data.result[0].value[1] // empty' 2>/dev/null)" = 1 ] && break
	sleep 0.5
done
echo "up{job=\"prscout\"} = $(q 'up{job="prscout"}' | jq -r '.data.result[0].value[1]')"
echo "prscout series in prometheus: $(q 'count({job="prscout", __name__=~"prscout_.*"})' | jq -r '.data.result[0].value[1]')"
echo "requests by route: $(q 'sum by (route) (prscout_http_requests_total{route=~"/v1/.*"}) > 0' | jq -c '[.data.result[] | {(.metric.route): .value[1]}] | add')"
echo "lookups by outcome: $(q 'sum by (op, outcome) (prscout_lookups_total) > 0' | jq -c '[.data.result[] | {(.metric.op + " " + .metric.outcome): .value[1]}] | add')"
sleep 2
echo "rules: $(curl -s "http://$W/api/v1/rules" | jq -c '[.data.groups[].rules[] | {(.name): .health}] | add')"
bad=$(curl -s "http://$W/api/v1/rules" | jq '[.data.groups[].rules[] | select(.health == "err")] | length')
[ "$bad" = 0 ] || { echo "rules with evaluation errors: $bad" >&2; exit 1; }
echo "check-ops: OK"
