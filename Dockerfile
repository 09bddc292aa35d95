# The prscout image: docs/container.md says how to build, run and check it
# (scripts/docker-check.sh builds this file and runs the image).
#
# Both stages are Debian bookworm: the builder is the Go image of go.mod's Go
# version, the runtime is bookworm-slim with git (the Bitbucket provider's
# repository mirrors and the local git provider run the git CLI) and CA
# certificates. Where a registry cannot be reached, scripts/docker-check.sh
# makes both base images, under these exact names, from Debian's packages.
#
# RUN --mount needs BuildKit (the default builder of Docker 23 and later).
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# The module proxy settings of the machine that builds (docker build
# --build-arg GOPROXY=...); unset ones keep the go command's defaults.
ARG GOPROXY
ARG GOSUMDB
ARG GONOSUMDB
ARG GOPRIVATE
ARG GOFLAGS
COPY go.mod go.sum ./
RUN --mount=type=cache,id=prscout-gomod,target=/go/pkg/mod \
    go mod download
COPY . .
ARG VERSION=dev
# The module and build caches persist across builds in BuildKit's cache, so
# a changed source recompiles only the packages it touches. cgo is on: the
# candidates' tree-sitter readers (C#, Kotlin, PHP, Ruby, Rust, C/C++,
# Swift, Scala) compile their grammars with the image's gcc, once per build
# cache; the binary links glibc, which the bookworm runtime has.
RUN --mount=type=cache,id=prscout-gomod,target=/go/pkg/mod \
    --mount=type=cache,id=prscout-gobuild,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X github.com/prscout/prscout/api.Version=${VERSION}" -o /out/prscout ./cmd/prscout

FROM debian:bookworm-slim
LABEL org.opencontainers.image.title="prscout" \
      org.opencontainers.image.description="Deterministic stages for two-pass AI code review of Bitbucket Cloud pull requests, called from n8n" \
      org.opencontainers.image.licenses="Apache-2.0"
# git (with its HTTPS transport) and CA certificates; the same uid/gid as
# distroless's nonroot user. safe.directory: the repositories the local
# provider reads are mounted from the host and owned by another uid, which git
# refuses to open otherwise; prscout runs git without the system config, so
# the setting lives in the global config GIT_CONFIG_GLOBAL names (the mirrors
# use none of it: their git runs with GIT_CONFIG_GLOBAL=/dev/null).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && mkdir -p /etc/prscout \
 && git config --file /etc/prscout/gitconfig --add safe.directory '*' \
 && groupadd --system --gid 65532 nonroot \
 && useradd --system --uid 65532 --gid 65532 --home-dir /var/lib/prscout --no-create-home --shell /usr/sbin/nologin nonroot \
 && mkdir -p /var/lib/prscout/mirrors \
 && chown -R 65532:65532 /var/lib/prscout
COPY --from=build /out/prscout /usr/local/bin/prscout
USER 65532:65532
WORKDIR /var/lib/prscout
ENV PRSCOUT_ADDR=0.0.0.0:8080 \
    PRSCOUT_MIRROR_DIR=/var/lib/prscout/mirrors \
    GIT_CONFIG_GLOBAL=/etc/prscout/gitconfig
VOLUME ["/var/lib/prscout"]
EXPOSE 8080
# /healthz on the port of PRSCOUT_ADDR, through bash's /dev/tcp: the image
# carries no HTTP client for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PRSCOUT_ADDR##*:} && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["/usr/local/bin/prscout"]
CMD ["serve"]
