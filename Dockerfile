# syntax=docker/dockerfile:1
# Build: docker build -t prscout .
# The image serves the Bitbucket Cloud provider. The local git provider needs
# the `git` binary, which a distroless image does not have: run the binary
# directly (go run ./cmd/prscout serve) for local repositories.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/prscout/prscout/api.Version=${VERSION}" -o /out/prscout ./cmd/prscout

FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.title="prscout" \
      org.opencontainers.image.description="Deterministic stages for two-pass AI code review of Bitbucket Cloud pull requests, called from n8n" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /out/prscout /usr/local/bin/prscout
USER nonroot:nonroot
ENV PRSCOUT_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/prscout"]
CMD ["serve"]
