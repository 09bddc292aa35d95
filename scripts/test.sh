#!/usr/bin/env bash
# The project's test command (the README's second line). It needs only Go and
# git; tests that need node (the gate's V8 differential tests) or the shared
# corpus skip themselves when those are absent.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt: these files are not formatted:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
echo "== go test -race"
go test -race -count=1 -timeout 20m ./...
echo "== workflow gate over workflows/"
go run ./cmd/prscout validate-workflow workflows/
