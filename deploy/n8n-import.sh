#!/bin/sh
# Run by the n8n-import service of compose.yaml (n8n's image, n8n's CLI):
# creates the three credentials the shipped workflows name, under those
# names and of those types (workflows/README.md, "Credentials"), then imports
# both workflows with Config pointing at the compose services. Credentials
# that exist are left alone; workflows are imported inactive: publish them
# in the editor. Idempotent: a second run changes nothing but the workflows.
# DEPLOY_DIR and WORKFLOWS_DIR (default /deploy, /workflows: the compose
# mounts) say where this folder and the workflows are.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

key=${PRSCOUT_API_KEYS%%,*}
: "${key:?PRSCOUT_API_KEYS is empty}"
: "${PRSCOUT_FORWARD_TOKEN:?PRSCOUT_FORWARD_TOKEN is empty}"

n8n export:credentials --all --output="$work/existing.json" >/dev/null 2>&1 || echo '[]' >"$work/existing.json"
node "${DEPLOY_DIR:-/deploy}/n8n-credentials.js" "$work/creds.json" "$key" "${LLM_API_KEY:-}" "${LLM_BASE_URL:-http://ollama:11434/v1}" \
	"$PRSCOUT_FORWARD_TOKEN" "$work/existing.json"
node - "$work" "${LLM_BASE_URL:-http://ollama:11434/v1}" "${PRSCOUT_INTERNAL_URL:-http://prscout:8080}" <<'JS'
const fs = require("fs");
const [work, llmBase, prscout] = process.argv.slice(2);
const wfs = ["pr-review.json", "pr-comments.json"].map((f) => {
  const wf = JSON.parse(fs.readFileSync((process.env.WORKFLOWS_DIR || "/workflows") + "/" + f, "utf8"));
  const cfg = wf.nodes.find((n) => n.name === "Config");
  for (const a of cfg.parameters.assignments.assignments) {
    if (a.name === "prscoutUrl") a.value = prscout;
    if (a.name === "llmBaseUrl") a.value = llmBase;
  }
  return wf;
});
fs.writeFileSync(work + "/workflows.json", JSON.stringify(wfs));
JS
if [ "$(cat "$work/creds.json")" != "[]" ]; then
	n8n import:credentials --input="$work/creds.json"
fi
n8n import:workflow --input="$work/workflows.json"
echo "n8n-import: done; open the editor, check Config, and publish both workflows"
