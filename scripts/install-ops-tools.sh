#!/usr/bin/env bash
# Installs the operations tools the ops scripts and tests use, from Debian's
# own packages: prometheus (the server and promtool) and nginx (the proxy of
# the keep-alive proof). Idempotent: it does nothing when both are present,
# and runs `apt-get update` at most once. Needs root (or sudo).
set -euo pipefail

need=()
command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -eq 0 ]; then
	echo "install-ops-tools: prometheus, promtool and nginx already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-ops-tools: installing ${need[*]}"
$SUDO apt-get update -qq
# --no-install-recommends keeps the prometheus package from pulling in its
# exporters; policy-rc.d stops the package scripts from starting services:
# the scripts start their own instances on loopback with their own configs.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod +x /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
promtool --version | head -1
/usr/sbin/nginx -v
