#!/bin/sh
# Replays the hardening issue's attacks against a freshly built prscout on a
# free loopback port (local git provider on a repository the run creates)
# and prints one line per class: held, failed, or skip when a class needs
# the Bitbucket provider. The mirror's classes run a second prscout with the
# Bitbucket provider and the mirror on a fake Bitbucket serving the same
# repository over git. Each class says what it cost (time, peak RSS, what
# left the process). Then checks the server is alive, its RSS is back
# under 150 MB and its goroutines are back to the baseline. Exits 1 when any
# class or check failed. Takes about three minutes (two classes wait out the
# server's read and write timeouts).
#   ./scripts/abuse.sh [-max-rss-mb 150] [-settle 90s] [-thread-only]
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GOFLAGS=-p=1 go build -o "$tmp/prscout" ./cmd/prscout
GOFLAGS=-p=1 go build -o "$tmp/abuse" ./scripts/abuse
"$tmp/abuse" -bin "$tmp/prscout" "$@"
