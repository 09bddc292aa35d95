#!/usr/bin/env bash
# Builds the container image from the Dockerfile and proves it, as
# docs/container.md describes:
#   1. a Docker engine: the one that answers, else Debian's docker.io started
#      here (dockerd --iptables=false --bridge=none; stopped by its PID at the end);
#   2. the base images the Dockerfile's FROM lines name: present, pulled, or
#      made here from Debian's packages (mmdebstrap, the release the tag names)
#      plus the Go toolchain of go.mod's version from the Go module proxy;
#   3. docker build (BuildKit; the engine's layer and cache mounts are kept
#      between runs, so a warm build costs seconds);
#   4. the image run: /healthz and the image's HEALTHCHECK, a whole review of a
#      repository mounted read-only (local provider: context, needs, batch,
#      merge, comments with dryRun), the uid, the mirror volume writable,
#      validate-workflow on workflows/, `prscout serve -h` against the settings
#      table of the docs;
#   5. deploy/compose.yaml validated with the compose tool and its prscout
#      service started (the other services' images are not built here).
# Where no engine can be had it says so and exits 0; under CI it fails.
# Everything runs within PRSCOUT_DOCKER_CHECK_TIMEOUT seconds (default 2400).
set -euo pipefail
cd "$(dirname "$0")/.."

limit=${PRSCOUT_DOCKER_CHECK_TIMEOUT:-2400}
if [ -z "${PRSCOUT_DOCKER_CHECK_INNER:-}" ]; then
  export PRSCOUT_DOCKER_CHECK_INNER=1
  t0=$SECONDS
  rc=0
  timeout -k 30 "$limit" "$0" "$@" || rc=$?
  [ "$rc" -eq 124 ] && echo "docker-check: FAIL: not done within ${limit}s (PRSCOUT_DOCKER_CHECK_TIMEOUT)"
  echo "docker-check: $((SECONDS - t0))s in all"
  exit "$rc"
fi

image=${PRSCOUT_DOCKER_IMAGE:-prscout:latest}
work=$(mktemp -d)
tag=check$$
dockerd_pid=""
containers=()
volumes=()
compose_up=false

say() { echo "docker-check: $*"; }
fail() { say "FAIL: $*"; exit 1; }
skip() {
  if [ -n "${CI:-}" ]; then fail "$* (CI is set, so this fails instead of skipping)"; fi
  say "SKIP: $*"
  exit 0
}

cleanup() {
  set +e
  if $compose_up; then
    "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1
  fi
  for c in "${containers[@]}"; do "$docker" rm -f -v "$c" >/dev/null 2>&1; done
  for v in "${volumes[@]}"; do "$docker" volume rm -f "$v" >/dev/null 2>&1; done
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$dockerd_pid" 2>/dev/null && kill -9 "$dockerd_pid" 2>/dev/null
    say "stopped the engine this check started (pid $dockerd_pid)"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# apt_install PKG...: Debian's packages, as root; false where that cannot be.
apt_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  local quiet=(-y -qq --no-install-recommends -o Dpkg::Use-Pty=0)
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install "${quiet[@]}" "$@" >"$work/apt.log" 2>&1 && return 0
  timeout 300 apt-get update -qq >>"$work/apt.log" 2>&1 || true
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install "${quiet[@]}" "$@" >>"$work/apt.log" 2>&1
}

# ---------------------------------------------------------------- 1. engine
docker=docker
command -v docker >/dev/null || docker=/usr/bin/docker
engine_up() { timeout 20 "$docker" info >/dev/null 2>&1; }
if ! engine_up; then
  if ! command -v dockerd >/dev/null; then
    # The package must not start a service of its own: this check starts the
    # engine and stops it again.
    made_policy=false
    if [ "$(id -u)" = 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=true
    fi
    say "installing Debian's docker.io"
    apt_install docker.io || { $made_policy && rm -f /usr/sbin/policy-rc.d; skip "no Docker engine answers and docker.io cannot be installed (needs root and apt-get)"; }
    $made_policy && rm -f /usr/sbin/policy-rc.d
    command -v docker >/dev/null && docker=docker || docker=/usr/bin/docker
  fi
  if ! engine_up; then
    [ "$(id -u)" = 0 ] || skip "no Docker engine answers and starting dockerd needs root"
    dockerd --iptables=false --bridge=none >"$work/dockerd.log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 1 60); do engine_up && break; kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
    if ! engine_up; then
      tail -5 "$work/dockerd.log" | sed 's/^/  dockerd: /'
      kill "$dockerd_pid" 2>/dev/null; wait "$dockerd_pid" 2>/dev/null; dockerd_pid=""
      skip "dockerd does not start on this machine"
    fi
    say "started dockerd (pid $dockerd_pid; data in $("$docker" info -f '{{.DockerRootDir}}'), kept for the next run's cache)"
  fi
fi

# The engine's data outlives a run (its build cache): the compose networks an
# earlier check left behind, one it did not live to take down, would use up
# the engine's address pools, so they go first.
for n in $("$docker" network ls --filter name=prscout-check --format '{{.Name}}' 2>/dev/null); do
  "$docker" network rm "$n" >/dev/null 2>&1 || true
done

# The Dockerfile's RUN --mount needs BuildKit: a client with buildx, or a
# client older than 23 that has BuildKit built in (Debian's docker.io).
client=""
for c in "$docker" /usr/bin/docker; do
  command -v "$c" >/dev/null || continue
  if "$c" buildx version >/dev/null 2>&1; then client=$c; break; fi
  v=$("$c" --version 2>/dev/null | sed -n 's/^Docker version \([0-9]*\)\..*/\1/p')
  if [ -n "$v" ] && [ "$v" -lt 23 ]; then client=$c; break; fi
done
[ -n "$client" ] || fail "no Docker client here builds with BuildKit (install the buildx plugin)"
docker=$client
export DOCKER_BUILDKIT=1
say "engine $("$docker" version -f '{{.Server.Version}}'), client $docker $("$docker" version -f '{{.Client.Version}}')"

# ---------------------------------------------------------- 2. base images
gomod_go=$(awk '$1 == "go" { print $2; exit }' go.mod)
mapfile -t froms < <(awk 'toupper($1) == "FROM" { print $2 }' Dockerfile)
for f in "${froms[@]}"; do
  case $f in
    golang:*) [ "$f" = "golang:${gomod_go}-bookworm" ] || fail "Dockerfile builds with $f, go.mod asks for Go $gomod_go (golang:${gomod_go}-bookworm)";;
  esac
done

have_image() { "$docker" image inspect "$1" >/dev/null 2>&1; }

# make_debian SUITE: debian:SUITE-slim from Debian's packages: minbase,
# merged /usr, no manuals, documentation or translations (what the official
# slim images leave out, and what later apt installs leave out too).
make_debian() {
  local suite=$1
  command -v mmdebstrap >/dev/null || apt_install mmdebstrap || fail "mmdebstrap is needed to make debian:${suite}-slim"
  say "making debian:${suite}-slim with mmdebstrap"
  local opts=(--variant=minbase --mode=root --format=tar
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
    --aptopt='Acquire::Languages "none"'
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/apt "$1"/var/log/dpkg.log')
  local p
  for p in '/usr/share/man/*' '/usr/share/doc/*' '/usr/share/info/*' '/usr/share/locale/*' '/usr/share/groff/*' '/usr/share/lintian/*'; do
    opts+=(--dpkgopt="path-exclude=$p")
  done
  opts+=(--dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-include=/usr/share/locale/locale.alias')
  timeout 900 mmdebstrap "${opts[@]}" "$suite" "$work/$suite.tar" >"$work/mmdebstrap.log" 2>&1 \
    || { tail -20 "$work/mmdebstrap.log"; fail "mmdebstrap $suite failed"; }
  "$docker" import --change 'CMD ["bash"]' \
    --change 'LABEL org.opencontainers.image.description="made by scripts/docker-check.sh with mmdebstrap"' \
    "$work/$suite.tar" "debian:${suite}-slim" >/dev/null
  rm -f "$work/$suite.tar"
  say "made debian:${suite}-slim (Debian $("$docker" run --rm --network none "debian:${suite}-slim" cat /etc/debian_version))"
}

# make_golang VERSION SUITE: golang:VERSION-SUITE as the official image lays
# it out (/usr/local/go, GOPATH=/go, GOTOOLCHAIN=local, git, CA
# certificates, and gcc with libc6-dev for cgo), from debian:SUITE-slim and the toolchain module the go
# command itself downloads when it switches toolchains (checked against the
# checksum database). It trusts this machine's extra CAs too, so that a
# builder behind a TLS-inspecting proxy reaches the Go module proxy.
make_golang() {
  local ver=$1 suite=$2 mod dir
  command -v go >/dev/null || fail "the go command is needed to fetch the Go $ver toolchain"
  mod="golang.org/toolchain@v0.0.1-go${ver}.linux-$(go env GOARCH)"
  say "making golang:${ver}-${suite} from debian:${suite}-slim and $mod"
  dir=$(cd "$work" && GOFLAGS=-mod=mod timeout 600 go mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && [ -x "$dir/bin" ] || fail "could not download $mod"
  mkdir -p "$work/go-root" "$work/ca"
  cp -r "$dir" "$work/go-root/go"
  chmod -R u+w,a+rX "$work/go-root/go"
  chmod a+x "$work/go-root/go/bin/"* "$work/go-root/go/pkg/tool/"*/*
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then cp /usr/local/share/ca-certificates/*.crt "$work/ca/"; fi
  local c=prscout-mkgo-$tag
  "$docker" create --network host --name "$c" "debian:${suite}-slim" sh -c \
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates git gcc libc6-dev >/dev/null && rm -rf /var/lib/apt/lists/*' >/dev/null
  containers+=("$c")
  "$docker" cp "$work/ca/." "$c:/usr/local/share/ca-certificates/"
  timeout 600 "$docker" start -a "$c" >"$work/mkgo.log" 2>&1 || { tail -20 "$work/mkgo.log"; fail "installing git into the Go image failed"; }
  "$docker" cp "$work/go-root/go" "$c:/usr/local/go"
  "$docker" commit \
    --change 'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV GOPATH=/go' --change 'ENV GOTOOLCHAIN=local' --change 'WORKDIR /go' --change 'CMD ["bash"]' \
    "$c" "golang:${ver}-${suite}" >/dev/null
  rm -rf "$work/go-root"
  say "made golang:${ver}-${suite} ($("$docker" run --rm --network none "golang:${ver}-${suite}" go version))"
}

ensure_base() {
  local img=$1
  if have_image "$img"; then
    # A Go image made here by an earlier recipe may lack the C compiler the
    # cgo build needs (the official image has it): made again.
    case $img in
      golang:*) "$docker" run --rm --network none "$img" sh -c 'command -v gcc' >/dev/null 2>&1 && return 0
        say "$img has no gcc: making it again"; "$docker" rmi -f "$img" >/dev/null;;
      *) return 0;;
    esac
  fi
  if timeout 120 "$docker" pull -q "$img" >/dev/null 2>&1; then say "pulled $img"; return 0; fi
  case $img in
    debian:*-slim) local s=${img#debian:}; make_debian "${s%-slim}";;
    golang:*-*) local v=${img#golang:}; local s=${v##*-}; v=${v%-*}
      ensure_base "debian:${s}-slim"; make_golang "$v" "$s";;
    *) fail "$img can neither be pulled nor made here";;
  esac
}
t_base=$SECONDS
for f in "${froms[@]}"; do ensure_base "$f"; done
say "base images ready in $((SECONDS - t_base))s: ${froms[*]}"

# ---------------------------------------------------------------- 3. build
build_args=(--build-arg "VERSION=$(git describe --always --dirty 2>/dev/null || echo dev)")
if command -v go >/dev/null; then
  for k in GOPROXY GOSUMDB GONOSUMDB GOPRIVATE GOFLAGS; do
    v=$(go env "$k"); [ -n "$v" ] && build_args+=(--build-arg "$k=$v")
  done
fi
for k in HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  [ -n "${!k:-}" ] && build_args+=(--build-arg "$k=${!k}")
done
t_build=$SECONDS
timeout 1800 "$docker" build --network host "${build_args[@]}" -t "$image" . >"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log"; fail "docker build failed"; }
build_s=$((SECONDS - t_build))
cached=$(grep -c ' CACHED$' "$work/build.log" || true)
size=$("$docker" image inspect -f '{{.Size}}' "$image")
say "built $image in ${build_s}s ($cached steps cached); image size $((size / 1024 / 1024)) MiB ($size bytes)"

# ------------------------------------------------------------------ 4. run
free_port() {
  local p
  for p in $(shuf -i 20000-40000 -n 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}

# A small repository: base adds calc.Add, head adds calc.Div without a zero check.
repo=$work/repo
git init -q "$repo"
g() { git -C "$repo" -c user.name=check -c user.email=check@example.invalid -c commit.gpgsign=false "$@"; }
mkdir -p "$repo/calc"
printf 'module example.com/demo\n\ngo 1.22\n' >"$repo/go.mod"
printf '# demo\n\nA calculator.\n' >"$repo/README.md"
printf 'package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n' >"$repo/calc/calc.go"
printf 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/demo/calc"\n)\n\nfunc main() { fmt.Println(calc.Add(1, 2)) }\n' >"$repo/main.go"
g add -A && g commit -q -m "calc: Add"
base=$(g rev-parse HEAD)
printf '\n// Div returns a/b.\nfunc Div(a, b int) int {\n\treturn a / b\n}\n' >>"$repo/calc/calc.go"
printf 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/demo/calc"\n)\n\nfunc main() { fmt.Println(calc.Add(1, 2), calc.Div(4, 0)) }\n' >"$repo/main.go"
g add -A && g commit -q -m "calc: Div"
head=$(g rev-parse HEAD)
div_line=$(grep -n 'return a / b' "$repo/calc/calc.go" | cut -d: -f1)
chmod -R a+rX "$repo"

port=$(free_port) || fail "no free loopback port"
key=check-key-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
vol=prscout-check-data-$tag
"$docker" volume create "$vol" >/dev/null
volumes+=("$vol")
cname=prscout-check-$tag
"$docker" run -d --name "$cname" --network host \
  --health-interval=2s --health-start-period=1s \
  -e "PRSCOUT_ADDR=127.0.0.1:$port" -e "PRSCOUT_API_KEYS=$key" -e PRSCOUT_LOCAL_ROOT=/repo \
  -v "$repo:/repo:ro" -v "$vol:/var/lib/prscout" "$image" >/dev/null
containers+=("$cname")
P=http://127.0.0.1:$port
for _ in $(seq 1 60); do curl -fsS -m 2 "$P/healthz" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fsS -m 5 "$P/healthz" >"$work/healthz.json" || { "$docker" logs "$cname" 2>&1 | tail -20; fail "/healthz does not answer"; }
say "/healthz: $(cat "$work/healthz.json")"
health=""
for _ in $(seq 1 30); do
  health=$("$docker" inspect -f '{{.State.Health.Status}}' "$cname")
  [ "$health" = healthy ] && break; sleep 1
done
[ "$health" = healthy ] || fail "the image's HEALTHCHECK says $health"
say "HEALTHCHECK: $health"

# post STAGE FILE-IN FILE-OUT: one stage; a non-2xx answer fails the check.
post() {
  local code
  code=$(curl -sS -m 60 -o "$3" -w '%{http_code}' -H "X-API-Key: $key" -H 'Content-Type: application/json' \
    --data-binary "@$2" "$P$1") || fail "POST $1: curl failed"
  [ "${code:0:1}" = 2 ] || fail "POST $1 answered $code: $(head -c 400 "$3")"
}
jq -n --arg b "$base" --arg h "$head" \
  '{workspace: "acme", repoSlug: "demo", base: $b, head: $h, title: "calc: Div"}' >"$work/ctx-in.json"
post /v1/context "$work/ctx-in.json" "$work/ctx.json"
jq -e '[.files[].path] | index("calc/calc.go")' "$work/ctx.json" >/dev/null || fail "context: calc/calc.go not among the changed files"
scout='{"files":[{"path":"calc/calc.go","needs":[{"op":"get_file","path":"README.md"},{"op":"list_dir","path":"calc"},{"op":"get_file","path":"../../etc/passwd"}]}]}'
jq --arg s "$scout" '{workspace, repoSlug, ref, files, scout: $s}' "$work/ctx.json" >"$work/needs-in.json"
post /v1/needs "$work/needs-in.json" "$work/needs.json"
post /v1/repository/batch "$work/needs.json" "$work/batch.json"
jq -e '[.results[] | select(.ok and .path == "README.md")] | length == 1' "$work/batch.json" >/dev/null \
  || fail "batch: README.md was not read from the mounted repository: $(head -c 400 "$work/batch.json")"
jq -n --slurpfile c "$work/ctx.json" --slurpfile b "$work/batch.json" \
  '{context: $c[0], results: $b[0].results, rejected: $b[0].rejected}' >"$work/merge-in.json"
post /v1/merge "$work/merge-in.json" "$work/merged.json"
review=$(jq -cn --argjson l "$div_line" '{summary: "Div divides by zero when b is 0.",
  findings: [{path: "calc/calc.go", line: $l, existingCode: "return a / b", severity: "high",
    title: "Division by zero", body: "Div(4, 0) panics; check b before dividing."}]}')
jq --arg r "$review" '. + {review: $r, dryRun: true}' "$work/merged.json" >"$work/comments-in.json"
post /v1/comments "$work/comments-in.json" "$work/comments.json"
jq -e '.stats.inline == 1' "$work/comments.json" >/dev/null || fail "comments: the finding was not anchored: $(jq -c .stats "$work/comments.json")"
say "review (context -> needs -> batch -> merge -> comments, dry run) of a repository mounted read-only:"
jq -r '"  changed files: \([.files[].path] | join(", ")) (mode \(.mode))"' "$work/ctx.json"
jq -r '"  lookups: \([.results[] | select(.ok)] | length) of \(.results | length) read, rejected: \([.rejected[]? | .reason] | join(", "))"' "$work/batch.json"
jq -r '"  findings \(.stats.findings), inline \(.stats.inline) (\(.inline[0].path):\(.inline[0].line)), unanchored \(.stats.unanchored), posted: \(.posted.summary)"' "$work/comments.json"
jq -r '.markdown' "$work/comments.json" | grep -v '^\[prscout\]' | grep -v '^[[:space:]]*$' | head -6 | sed 's/^/  | /'

uid=$("$docker" exec "$cname" id -u)
[ "$uid" = 65532 ] || fail "the image runs as uid $uid, not 65532"
say "uid: $uid"
"$docker" exec "$cname" sh -c 'f=/var/lib/prscout/mirrors/.write-check && : >"$f" && rm "$f"' \
  || fail "the mirror volume (/var/lib/prscout/mirrors) is not writable by uid 65532"
say "mirror volume: $("$docker" inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/prscout"}}{{.Type}} {{.Name}}{{end}}{{end}}' "$cname") on /var/lib/prscout, mirrors/ writable by uid 65532"
"$docker" rm -f "$cname" >/dev/null

"$docker" run --rm --network none -v "$PWD/workflows:/workflows:ro" "$image" validate-workflow /workflows >"$work/gate.txt" 2>&1 \
  || { cat "$work/gate.txt"; fail "validate-workflow on workflows/ from the image"; }
say "validate-workflow /workflows: $(tail -1 "$work/gate.txt")"

# serve -h against the settings table (docs/configuration.md, generated from
# cmd/prscout's settings): the same variables, flags and defaults. The image's
# own PRSCOUT_ADDR and PRSCOUT_MIRROR_DIR are unset so that -h shows the
# built-in defaults.
table=docs/configuration.md
"$docker" run --rm --network none --entrypoint /usr/bin/env "$image" -u PRSCOUT_ADDR -u PRSCOUT_MIRROR_DIR \
  /usr/local/bin/prscout serve -h >"$work/serve-h.txt" 2>&1 || true
awk '/^  -[a-z]/ { flag = "-" $1; next }
  match($0, /\(env PRSCOUT_[A-Z0-9_]+, default ".*"\)$/) {
    s = substr($0, RSTART + 5, RLENGTH - 6); env = s; sub(/,.*/, "", env)
    def = s; sub(/^[^"]*"/, "", def); sub(/"$/, "", def)
    print env "\t" flag "\t" def }' "$work/serve-h.txt" | sort >"$work/flags.tsv"
grep '^| `PRSCOUT_' "$table" | awk -F'|' '{
    env = $2; flag = $3; def = $4
    gsub(/[` ]/, "", env); gsub(/[` ]/, "", flag); gsub(/^ +| +$/, "", def); gsub(/`/, "", def)
    if (def == "(empty)" || def == "(none)") def = ""
    print env "\t" flag "\t" def }' | sort >"$work/table.tsv"
# A default the table writes in words, such as "(working directory)", is not compared.
# Durations are compared by value (the table's 120s is -h's 2m0s).
norm='function dur(s,  t, n, u) {
    if (s !~ /^([0-9.]+(ms|h|m|s))+$/) return s
    t = 0
    while (match(s, /^[0-9.]+(ms|h|m|s)/)) {
      n = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1)
      u = n; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", n)
      t += n * (u == "h" ? 3600000 : u == "m" ? 60000 : u == "s" ? 1000 : 1)
    }
    return t "ms"
  }'
awk -F'\t' "$norm"'
  NR == FNR { if ($3 ~ /^\(.*\)$/) words[$1] = 1; next }
  { d = ($1 in words) ? "(words)" : dur($3); print $1 "\t" $2 "\t" d }' \
  "$work/table.tsv" "$work/flags.tsv" >"$work/flags2.tsv"
awk -F'\t' "$norm"'{ d = ($3 ~ /^\(.*\)$/) ? "(words)" : dur($3); print $1 "\t" $2 "\t" d }' \
  "$work/table.tsv" >"$work/table2.tsv"
[ -s "$work/flags.tsv" ] || fail "serve -h printed no settings: $(head -5 "$work/serve-h.txt")"
if ! diff "$work/table2.tsv" "$work/flags2.tsv" >"$work/settings.diff"; then
  sed 's/^/  /' "$work/settings.diff"
  fail "prscout serve -h in the image and the settings table of $table differ (< table, > serve -h)"
fi
say "serve -h: $(wc -l <"$work/flags.tsv") settings match the table of $table (variable, flag, default)"

# -------------------------------------------------------------- 5. compose
compose=()
if "$docker" compose version >/dev/null 2>&1; then
  compose=("$docker" compose)
else
  command -v docker-compose >/dev/null || apt_install docker-compose || true
  command -v docker-compose >/dev/null && compose=(docker-compose)
fi
[ ${#compose[@]} -gt 0 ] || fail "no compose tool (docker compose, or Debian's docker-compose)"
cver=$("${compose[@]}" version --short 2>/dev/null || "${compose[@]}" version | head -1)
"${compose[@]}" -f deploy/compose.yaml --env-file deploy/.env.example config -q \
  || fail "deploy/compose.yaml does not validate with ${compose[*]} $cver"
# Every published port binds to loopback with the example settings.
# (compose v1 prints ports short, host:port:port; v2 long, host_ip and published)
"${compose[@]}" -f deploy/compose.yaml --env-file deploy/.env.example config >"$work/compose.resolved.yaml"
short_open=$(grep -E '^ *- "?[0-9.]*:?[0-9]+:[0-9]+' "$work/compose.resolved.yaml" | grep -vc '127\.0\.0\.1:' || true)
published=$(grep -cE '^ *published:' "$work/compose.resolved.yaml" || true)
local_ips=$(grep -cE '^ *host_ip: 127\.0\.0\.1' "$work/compose.resolved.yaml" || true)
[ "$short_open" -eq 0 ] && [ "$published" -eq "$local_ips" ] \
  || fail "deploy/compose.yaml publishes ports beyond loopback ($short_open short, $published published, $local_ips on 127.0.0.1)"
say "compose: every published port binds to 127.0.0.1 with deploy/.env.example"
say "compose: deploy/compose.yaml with deploy/.env.example is valid (${compose[*]} $cver); services: $("${compose[@]}" -f deploy/compose.yaml --env-file deploy/.env.example config --services | tr '\n' ' ')"
mkdir -p "$work/prom/rules"
printf 'check-token' >"$work/prom/token"
sed "s#/prometheus/prscout-metrics-token#$work/prom/token#" deploy/prometheus/prometheus.yml >"$work/prom/prometheus.yml"
cp ops/prometheus-alerts.yml "$work/prom/rules/prscout-alerts.yml"
if command -v promtool >/dev/null; then
  promtool check config "$work/prom/prometheus.yml" >"$work/promtool.txt" 2>&1 \
    || { cat "$work/promtool.txt"; fail "promtool: deploy/prometheus/prometheus.yml with ops/prometheus-alerts.yml"; }
  say "promtool: deploy/prometheus/prometheus.yml and the $(grep -c '^ *- alert:' ops/prometheus-alerts.yml) rules of ops/prometheus-alerts.yml are valid"
fi
uids=$(sed 's/.{DS_PROMETHEUS}/prometheus/g' ops/grafana-dashboard.json \
  | jq -r '[.. | objects | select(has("datasource")) | .datasource | if type == "object" then .uid else . end] | unique | join(",")')
[ "$uids" = prometheus ] || fail "the provisioned dashboard would name data sources $uids, not the provisioned uid prometheus"
say "grafana: the provisioned dashboard names only the provisioned data source (uid prometheus)"

# Start the prscout service from the compose file with the example's secrets,
# in a network namespace of its own (network_mode none: this engine has no
# bridge; Docker leaves the published port unbound), and ask it from inside,
# as Prometheus would: /healthz, then /metrics without and with the token.
cat >"$work/compose.check.yaml" <<'EOF'
services:
  prscout:
    network_mode: none
    healthcheck:
      interval: 2s
      start_period: 1s
EOF
# The example's change-me values are refused at start (checked below); the
# service starts with the example file's other settings and fresh secrets.
sed "s/=change-me-.*/=check-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')-secret/" deploy/.env.example >"$work/check.env"
refused=$(PRSCOUT_IMAGE=$image "${compose[@]}" -p "prscout-$tag-refuse" -f deploy/compose.yaml --env-file deploy/.env.example \
  run --rm --no-deps -T prscout serve 2>&1 || true)
# `run --rm` removes the container, not the project's network.
"${compose[@]}" -p "prscout-$tag-refuse" -f deploy/compose.yaml --env-file deploy/.env.example down >/dev/null 2>&1 || true
case "$refused" in
  *"PRSCOUT_API_KEYS: key 1 is the example value"*"PRSCOUT_WEBHOOK_SECRET: is the example value"*) ;;
  *) echo "$refused" | tail -5; fail "prscout started with deploy/.env.example's change-me values";;
esac
say "compose: prscout refuses to start with deploy/.env.example's change-me values"
compose+=(-p "prscout-$tag" -f deploy/compose.yaml -f "$work/compose.check.yaml" --env-file "$work/check.env")
compose_up=true
PRSCOUT_IMAGE=$image timeout 300 "${compose[@]}" up -d --no-build --no-deps prscout >"$work/compose-up.log" 2>&1 \
  || { cat "$work/compose-up.log"; fail "compose up prscout"; }
cid=$("${compose[@]}" ps -q prscout)
health=""
for _ in $(seq 1 30); do
  health=$("$docker" inspect -f '{{.State.Health.Status}}' "$cid")
  [ "$health" = healthy ] && break; sleep 1
done
[ "$health" = healthy ] || { "$docker" logs "$cid" 2>&1 | tail -20; fail "the compose prscout service is $health"; }
# inside PATH [HEADER]: the status line of a GET on the service's own port.
inside() {
  "$docker" exec "$cid" bash -c 'exec 3<>/dev/tcp/127.0.0.1/8080 &&
    printf "GET %s HTTP/1.0\r\n%s\r\n" "$1" "${2:+$2$'"'"'\r\n'"'"'}" >&3 && head -n1 <&3' _ "$@" | tr -d '\r'
}
mtoken=$(sed -n 's/^PRSCOUT_METRICS_TOKEN=//p' "$work/check.env")
m_no=$(inside /metrics)
m_yes=$(inside /metrics "Authorization: Bearer $mtoken")
case "$m_no/$m_yes" in
  *" 401 "*/*" 200 "*) ;;
  *) fail "compose prscout /metrics: '$m_no' without the token, '$m_yes' with it (want 401 and 200)";;
esac
vname=$("$docker" inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/prscout"}}{{.Name}}{{end}}{{end}}' "$cid")
say "compose: the prscout service started from deploy/compose.yaml: $health, /metrics 401 without the token and 200 with it, volume $vname"
"${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
compose_up=false
say "ok (build ${build_s}s, image $((size / 1024 / 1024)) MiB, uid $uid)"
