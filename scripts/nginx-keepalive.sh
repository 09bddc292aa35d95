#!/usr/bin/env bash
# The keep-alive proof (codetest-mcp's 504s came from the proxy's idle
# timeout, not total time): Debian's nginx on loopback with
# proxy_read_timeout 2s in front of prscout, whose batch stage runs ~5s
# against a fake Bitbucket that delays every source request by 2.5s.
#   plain call                          -> nginx answers 504 after 2s
#   Accept: application/x-ndjson        -> ping lines, then the result line
#   X-Prscout-Keepalive: 1 (n8n mode)   -> 200, whitespace heartbeats, JSON body
#   n8n mode, stage fails after 3s      -> 200, heartbeats, {"error","message","status":404}
# Each call asks for a different file, so the lookup cache cannot help.
# Needs nginx (./scripts/install-ops-tools.sh), curl and jq. Exits 1 when a
# call does not end as stated above.
set -euo pipefail
cd "$(dirname "$0")/.."
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx not installed: run ./scripts/install-ops-tools.sh" >&2; exit 2; }

tmp=$(mktemp -d)
chmod 755 "$tmp"
pids=()
cleanup() {
	[ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

go build -o "$tmp/prscout" ./cmd/prscout
go build -o "$tmp/fakebitbucket" ./scripts/ops/fakebitbucket
"$tmp/fakebitbucket" -delay 2500ms >"$tmp/fake.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q COMMIT= "$tmp/fake.out" 2>/dev/null && break; sleep 0.1; done
BASE_URL=$(sed -n 's/^BASE_URL=//p' "$tmp/fake.out")
COMMIT=$(sed -n 's/^COMMIT=//p' "$tmp/fake.out")

P=127.0.0.1:$(free_port)
PRSCOUT_ADDR=$P PRSCOUT_BITBUCKET_BASE_URL=$BASE_URL PRSCOUT_BITBUCKET_ACCESS_TOKEN=fake \
	PRSCOUT_KEEPALIVE_INTERVAL=500ms PRSCOUT_LOOKUP_TIMEOUT=30s "$tmp/prscout" serve >"$tmp/prscout.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -fs "http://$P/healthz" >/dev/null && break; sleep 0.1; done

N=127.0.0.1:$(free_port)
mkdir -p "$tmp/logs"
cat >"$tmp/nginx.conf" <<CONF
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $tmp/client_body;
  proxy_temp_path $tmp/proxy;
  fastcgi_temp_path $tmp/fastcgi;
  uwsgi_temp_path $tmp/uwsgi;
  scgi_temp_path $tmp/scgi;
  server {
    listen $N;
    location / {
      proxy_pass http://$P;
      proxy_http_version 1.1;
      proxy_read_timeout 2s;
    }
  }
}
CONF
"$NGINX" -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/logs/error.log"
for _ in $(seq 50); do curl -s -o /dev/null "http://$N/healthz" && break; sleep 0.1; done
echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///') on $N, proxy_read_timeout 2s -> prscout on $P (keep-alive interval 500ms); each lookup waits 2 x 2.5s upstream"

body() { printf '{"workspace":"acme","repoSlug":"app","ref":"%s","requests":[{"op":"get_file","path":"%s"}]}' "$COMMIT" "$1"; }
fail=0

echo
echo "== 1. plain call: curl -s -X POST http://$N/v1/repository/batch -d '<slow1.go>'"
out=$(curl -s -o "$tmp/plain.out" -w '%{http_code} %{time_total}' -X POST "http://$N/v1/repository/batch" -H 'Content-Type: application/json' -H 'X-Request-Id: proof-plain' --data-binary "$(body slow1.go)")
echo "status ${out% *} after ${out#* }s: $(grep -o '<title>[^<]*' "$tmp/plain.out" | sed 's/<title>//')"
[ "${out% *}" = 504 ] || { echo "FAIL: want 504"; fail=1; }

echo
echo "== 2. ndjson: curl -s -N -H 'Accept: application/x-ndjson' -X POST http://$N/v1/repository/batch -d '<slow2.go>'"
out=$(curl -s -N -o "$tmp/ndjson.out" -w '%{http_code} %{time_total}' -X POST "http://$N/v1/repository/batch" -H 'Content-Type: application/json' -H 'Accept: application/x-ndjson' -H 'X-Request-Id: proof-ndjson' --data-binary "$(body slow2.go)")
pings=$(grep -c '"type":"ping"' "$tmp/ndjson.out" || true)
last=$(tail -n1 "$tmp/ndjson.out")
echo "status ${out% *} after ${out#* }s: $pings ping lines, then: $(jq -c '{type, status, ok: .data.results[0].ok, path: .data.results[0].path, content: .data.results[0].content}' <<<"$last")"
[ "${out% *}" = 200 ] && [ "$(jq -r .type <<<"$last")" = result ] && [ "$(jq -r '.data.results[0].ok' <<<"$last")" = true ] || { echo "FAIL: want a result line"; fail=1; }

echo
echo "== 3. n8n mode: curl -s -H 'X-Prscout-Keepalive: 1' -X POST http://$N/v1/repository/batch -d '<slow3.go>'"
out=$(curl -s -o "$tmp/n8n.out" -D "$tmp/n8n.hdr" -w '%{http_code} %{time_total}' -X POST "http://$N/v1/repository/batch" -H 'Content-Type: application/json' -H 'X-Prscout-Keepalive: 1' -H 'X-Request-Id: proof-n8n' --data-binary "$(body slow3.go)")
ws=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(len(d)-len(d.lstrip()))' "$tmp/n8n.out")
echo "status ${out% *} after ${out#* }s, $(grep -i '^content-type' "$tmp/n8n.hdr" | tr -d '\r'), $ws whitespace heartbeat bytes, then JSON: $(jq -c '{ok: .results[0].ok, path: .results[0].path, stats: {requested: .stats.requested, ok: .stats.ok}}' "$tmp/n8n.out")"
[ "${out% *}" = 200 ] && [ "$(jq -r '.results[0].ok' "$tmp/n8n.out")" = true ] && [ "$ws" -gt 0 ] || { echo "FAIL: want 200 and the JSON body"; fail=1; }
node_check=""
if command -v node >/dev/null; then
	node_check=$(node -e 'const b=require("fs").readFileSync(process.argv[1],"utf8"); const j=JSON.parse(b); console.log("JSON.parse (what n8n runs) ok: results[0].ok="+j.results[0].ok)' "$tmp/n8n.out")
	echo "$node_check"
fi

echo
echo "== 4. n8n mode, a stage that fails late: curl -s -H 'X-Prscout-Keepalive: 1' -X POST http://$N/v1/context -d '{\"workspace\":\"acme\",\"repoSlug\":\"app\",\"prId\":7}' (Bitbucket answers 404 after 3s)"
out=$(curl -s -o "$tmp/n8nerr.out" -w '%{http_code} %{time_total}' -X POST "http://$N/v1/context" -H 'Content-Type: application/json' -H 'X-Prscout-Keepalive: 1' -H 'X-Request-Id: proof-n8n-error' --data-binary '{"workspace":"acme","repoSlug":"app","prId":7}')
echo "status ${out% *} after ${out#* }s, body: $(jq -c . "$tmp/n8nerr.out")  -> n8n: IF {{ \$json.error }}"
[ "${out% *}" = 200 ] && [ "$(jq -r .status "$tmp/n8nerr.out")" = 404 ] && [ "$(jq -r .error "$tmp/n8nerr.out")" != null ] || { echo "FAIL: want 200 with the error in the body"; fail=1; }

echo
echo "prscout's log of the calls (metrics and logs keep the stage's real status; the first ended when nginx closed the connection at 2s):"
grep '"msg":"request"' "$tmp/prscout.log" | grep -v healthz | jq -c '{route, status, duration_ms, request_id}' || true
[ $fail = 0 ] && echo "nginx-keepalive: OK" || exit 1
