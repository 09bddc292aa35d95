# syntax=docker/dockerfile:1
# Build: docker build -t prscout .
# The image carries git: the Bitbucket provider's repository mirrors
# (PRSCOUT_MIRROR_DIR, for context candidates and reads without REST calls)
# and the local git provider run the git CLI. It runs as a non-root user;
# mount a volume on /var/lib/prscout to keep the mirrors across restarts.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/prscout/prscout/api.Version=${VERSION}" -o /out/prscout ./cmd/prscout

FROM alpine:3.22
LABEL org.opencontainers.image.title="prscout" \
      org.opencontainers.image.description="Deterministic stages for two-pass AI code review of Bitbucket Cloud pull requests, called from n8n" \
      org.opencontainers.image.licenses="Apache-2.0"
# git (with its HTTPS transport) and CA certificates; the same uid/gid as
# distroless's nonroot user.
RUN apk add --no-cache git ca-certificates \
 && addgroup -S -g 65532 nonroot \
 && adduser -S -D -H -u 65532 -G nonroot -h /var/lib/prscout nonroot \
 && mkdir -p /var/lib/prscout/mirrors \
 && chown -R 65532:65532 /var/lib/prscout
COPY --from=build /out/prscout /usr/local/bin/prscout
USER 65532:65532
WORKDIR /var/lib/prscout
ENV PRSCOUT_ADDR=0.0.0.0:8080 \
    PRSCOUT_MIRROR_DIR=/var/lib/prscout/mirrors
VOLUME ["/var/lib/prscout"]
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/prscout"]
CMD ["serve"]
