#!/usr/bin/env bash
# The project's test command (the README's second line), and what CI runs.
# It installs what it needs on a fresh machine (Go, Node 20, git and the
# package registries are assumed):
#   - Debian's prometheus (promtool) and nginx for the operations tests and
#     the keep-alive proof (scripts/install-ops-tools.sh, needs root);
#   - n8n 2.8.4, once, into ${PRSCOUT_N8N_CACHE:-~/.cache/prscout-n8n} for the
#     real-n8n end-to-end run of the shipped workflow (scripts/e2e-n8n.sh);
#   - Debian's postgresql and redis-server for its run at scale in n8n's
#     queue mode (scripts/e2e-scale.sh, needs root; no service is started);
#   - Debian's chromium and playwright-core (npm, no browser download) for
#     the editor path in a real browser (scripts/e2e-browser.sh: credentials,
#     Import from File, publish, one review; screenshots in artifacts/browser).
# Both runs check that no build output is tracked, gofmt, go vet, staticcheck
# (pinned below, built by `go run` from the module proxy, nothing installed
# globally), go test -race and the workflow gate; --quick stops there (tests
# that need promtool, nginx or node skip themselves when those are absent).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false
staticcheck_version=v0.8.2
[ "${1:-}" = "--quick" ] && quick=true

if ! $quick; then
  echo "== install ops tools"
  ./scripts/install-ops-tools.sh
fi
echo "== no tracked build outputs"
./scripts/check-build-outputs.sh
echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt: these files are not formatted:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
# Without cgo the tree-sitter readers are left out and their languages fall
# back to the identifier search: that build must still compile.
echo "== CGO_ENABLED=0 go build"
CGO_ENABLED=0 go build ./...
# The candidates and structure benchmarks are modules of their own (they
# need golang.org/x/tools and the tree-sitter grammars): vetting them keeps
# them building against the engine they measure.
(cd scripts/bench/candidates && go vet .)
(cd scripts/bench/structure && go vet .)
echo "== staticcheck $staticcheck_version"
go run "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version" ./...
echo "== go test -race"
go test -race -count=1 -timeout 20m ./...
echo "== workflow gate over workflows/"
go run ./cmd/prscout validate-workflow workflows/
if ! $quick; then
  echo "== keep-alive behind nginx"
  ./scripts/nginx-keepalive.sh
  echo "== the shipped n8n workflow in a real n8n"
  ./scripts/e2e-n8n.sh
  echo "== the editor path in a real browser: credentials, Import from File, publish, a review"
  ./scripts/e2e-browser.sh
  echo "== the README walk-through, as written"
  ./scripts/readme-walkthrough.sh
  echo "== the shipped workflow at scale: n8n queue mode, prscout replicas, faults"
  scale_t0=$(date +%s)
  ./scripts/e2e-scale.sh
  echo "e2e-scale took $(( $(date +%s) - scale_t0 )) s"
  echo "== the container image, built and run (docs/container.md)"
  ./scripts/docker-check.sh
fi
