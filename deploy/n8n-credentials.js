// Writes the three credentials the shipped workflows name, as n8n's CLI
// imports them (n8n import:credentials --input=FILE): their names and types
// are those of workflows/README.md, "Credentials". Used by the compose
// quick start (n8n-import.sh) and the end-to-end scripts.
//
//   node n8n-credentials.js OUT PRSCOUT_API_KEY LLM_API_KEY LLM_BASE_URL FORWARD_TOKEN [EXISTING]
//
// EXISTING, an `n8n export:credentials --all` file, lists credentials to
// keep: one of the same name and type is not written again.
const fs = require("fs");
const [out, apiKey, llmKey, llmBase, token, existing] = process.argv.slice(2);
if (!out || !apiKey || !token) {
  console.error("usage: node n8n-credentials.js OUT PRSCOUT_API_KEY LLM_API_KEY LLM_BASE_URL FORWARD_TOKEN [EXISTING]");
  process.exit(2);
}
let have = [];
if (existing && fs.existsSync(existing)) {
  try {
    have = JSON.parse(fs.readFileSync(existing, "utf8"));
  } catch {
    have = [];
  }
}
const kept = new Set(have.map((c) => c.type + "/" + c.name));
const creds = [
  { id: "PrscoutApiKey001", name: "prscout API key", type: "httpBearerAuth", data: { token: apiKey } },
  { id: "PrscoutLlmKey001", name: "LLM API key", type: "openAiApi", data: { apiKey: llmKey || "none", url: llmBase || "https://api.openai.com/v1" } },
  { id: "PrscoutHookTok01", name: "prscout webhook token", type: "httpHeaderAuth", data: { name: "X-Prscout-Token", value: token } },
].filter((c) => !kept.has(c.type + "/" + c.name));
fs.writeFileSync(out, JSON.stringify(creds));
console.log(creds.length + " credential(s) written to " + out);
