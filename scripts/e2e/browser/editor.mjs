// The editor path of workflows/README.md in a real n8n, driven in Debian's
// chromium: create the three credentials in the UI, Import from File both
// workflows, publish each without opening a node, and screenshot each at
// fit-to-view. Run by scripts/e2e-browser.sh, which starts n8n and the fakes.
//
//   node editor.mjs   (settings in the environment, see `need` below)
//
// Prints one JSON line per step; exits non-zero on the first failure.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// playwright-core from the cache folder the script installed it into.
const { chromium, selectors } = await import(
  process.env.PLAYWRIGHT_CORE ? pathToFileURL(process.env.PLAYWRIGHT_CORE).href : "playwright-core");

const need = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const N8N = need("N8N_URL");
const OUT = need("ARTIFACTS");
const PROFILE = need("BROWSER_PROFILE");
const files = need("WORKFLOW_FILES").split(",");
const creds = [
  { name: "prscout API key", type: "Bearer Auth", fields: { token: need("PRSCOUT_API_KEY") } },
  { name: "LLM API key", type: "OpenAi", fields: { apiKey: need("LLM_API_KEY"), url: need("LLM_BASE_URL") } },
  { name: "prscout webhook token", type: "Header Auth", fields: { name: "X-Prscout-Token", value: need("FORWARD_TOKEN") } },
];
const say = (step, data = {}) => console.log(JSON.stringify({ step, ...data }));

selectors.setTestIdAttribute("data-test-id"); // n8n's editor names its elements so
const browser = await chromium.launchPersistentContext(PROFILE, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1600, height: 900 },
  baseURL: N8N,
});
const page = browser.pages()[0] || (await browser.newPage());
page.setDefaultTimeout(30000);
let failed = false;
try {
  // The owner account n8n asks for on first start (not part of the README's
  // steps): set up through the same endpoint its setup form posts to.
  const owner = { email: "owner@example.com", firstName: "Platform", lastName: "Team", password: "Browser-Test-Passw0rd!" };
  let r = await browser.request.post("/rest/owner/setup", { data: owner });
  if (!r.ok()) throw new Error(`owner setup: ${r.status()} ${await r.text()}`);
  say("owner");

  for (const c of creds) {
    await createCredential(c);
    say("credential", { name: c.name, type: c.type });
  }
  const ids = [];
  for (const f of files) {
    const id = await importAndPublish(f);
    ids.push(id);
  }
  fs.writeFileSync(path.join(OUT, "workflow-ids.json"), JSON.stringify(ids));
} catch (e) {
  failed = true;
  say("error", { message: String(e && e.stack || e) });
  await page.screenshot({ path: path.join(OUT, "failure.png") }).catch(() => {});
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);

async function createCredential(c) {
  await page.goto("/home/credentials/create");
  const select = page.getByTestId("new-credential-type-select");
  await select.click();
  await page.keyboard.type(c.type);
  await page.getByTestId("new-credential-type-select-option").filter({ hasText: new RegExp(`^\\s*${c.type}\\s*$`) }).first().click();
  await page.getByTestId("new-credential-type-button").click();
  // The name: click the title, select all, type.
  const dialog = page;
  await page.getByTestId("credential-name").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.type(c.name);
  await page.keyboard.press("Enter");
  for (const [field, value] of Object.entries(c.fields)) {
    const input = dialog.getByTestId(`parameter-input-${field}`).locator("input, textarea").first();
    await input.fill(value);
  }
  await dialog.getByTestId("credential-save-button").click();
  // Saved: the credential exists under that name (n8n may warn that its
  // connection test failed; the credential is saved all the same).
  for (let i = 0; i < 50; i++) {
    const list = await browser.request.get("/rest/credentials");
    const data = (await list.json()).data || [];
    if (data.some((x) => x.name === c.name)) {
      await page.keyboard.press("Escape");
      return;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`credential ${c.name} was not saved`);
}

async function importAndPublish(file) {
  const name = JSON.parse(fs.readFileSync(file, "utf8")).name;
  await page.goto("/workflow/new");
  await page.getByTestId("workflow-menu").click();
  const chooser = page.waitForEvent("filechooser");
  await page.getByText("Import from File...", { exact: false }).first().click();
  await (await chooser).setFiles(file);
  // Imported: the canvas holds the nodes; save, as the editor asks.
  await page.locator(".vue-flow__node").first().waitFor();
  await page.keyboard.press("Control+s");
  await page.waitForURL(/\/workflow\/[A-Za-z0-9]+/);
  const id = page.url().match(/\/workflow\/([A-Za-z0-9]+)/)[1];
  let wf = null;
  for (let i = 0; i < 50 && !wf; i++) {
    wf = await getWorkflow(id, true);
    if (!wf) await page.waitForTimeout(200);
  }
  if (!wf) throw new Error(`${path.basename(file)}: not saved`);
  const unlinked = wf.nodes.filter((n) => n.credentials && Object.values(n.credentials).some((c) => !c.id)).map((n) => n.name);
  if (unlinked.length) throw new Error(`${path.basename(file)}: nodes without a linked credential after import: ${unlinked.join(", ")}`);
  say("imported", { file: path.basename(file), id, nodes: wf.nodes.length, linked: wf.nodes.filter((n) => n.credentials).length });

  await page.getByTestId("zoom-to-fit").click();
  await page.waitForTimeout(800);
  await page.screenshot({ path: path.join(OUT, path.basename(file, ".json") + ".png") });

  await page.getByTestId("workflow-open-publish-modal-button").click();
  await page.getByTestId("workflow-publish-button").click();
  for (let i = 0; i < 50 && !wf.activeVersionId; i++) {
    await page.waitForTimeout(200);
    wf = await getWorkflow(id);
  }
  if (!wf.activeVersionId) throw new Error(`${name}: not published`);
  say("published", { file: path.basename(file), id, name });
  return id;
}

async function getWorkflow(id, mayBeMissing = false) {
  const r = await browser.request.get(`/rest/workflows/${id}`);
  if (r.status() === 404 && mayBeMissing) return null;
  if (!r.ok()) throw new Error(`GET workflow ${id}: ${r.status()}`);
  return (await r.json()).data;
}
