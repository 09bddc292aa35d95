// Node half of scripts/bench-needs.sh: the reference workflow's JavaScript for
// the same step, its n8n Code node "needs 요청 생성" (needs request
// generation, step 2 of the two-stage review workflow prscout replaces), run
// in-process on the same generated input as the Go half.
//
//   node scripts/bench/needs/seed.js <input.json> [reference-requests.json]
//
// The input is a NeedsInput JSON whose scout is {"files":[{path, needs}]}; the
// Code node reads one n8n item per changed file ({path, needs}), so
// $input.all() is emulated by mapping those files to items.
'use strict';
const fs = require('fs');

// ---- the reference workflow's Code node, verbatim except that $input.all()
// is a parameter and the console.log calls are dropped from the timed loop ----
function referenceNeeds(items) {
  const totalLimit = 12;
  const perFileLimit = 5;
  const files = items.map((item) => item.json);
  const changed = new Set(files.map((file) => file.path));
  const noise = /(^|\/)(dist|build|out|target|node_modules|vendor|coverage|\.next|__snapshots__)\/|\.(lock|snap|min\.js|min\.css|map|png|jpe?g|svg|gif|ico|woff2?)$/i;

  const seen = new Set();
  const requests = [];
  for (const file of files) {
    let used = 0;
    for (const need of file.needs ?? []) {
      const path = String(need.path ?? '').trim();
      if (!path || changed.has(path) || noise.test(path)) continue;
      if (seen.has(path) || used >= perFileLimit) continue;
      seen.add(path);
      used += 1;
      requests.push({
        op: need.op === 'list_dir' ? 'list_dir' : 'get_file',
        path
      });
      if (requests.length >= totalLimit) break;
    }
    if (requests.length >= totalLimit) break;
  }

  if (requests.length === 0) {
    return [{ json: { skip: true, requests: [] } }];
  }
  return requests.map((request) => ({ json: request }));
}
// ---- end of the reference workflow's Code node ----

// The same loop without the early exit at the total cap: every need is
// looked at, as prscout does (for an apples-to-apples figure only).
function referenceNeedsNoBreak(items) {
  const totalLimit = 12;
  const perFileLimit = 5;
  const files = items.map((item) => item.json);
  const changed = new Set(files.map((file) => file.path));
  const noise = /(^|\/)(dist|build|out|target|node_modules|vendor|coverage|\.next|__snapshots__)\/|\.(lock|snap|min\.js|min\.css|map|png|jpe?g|svg|gif|ico|woff2?)$/i;
  const seen = new Set();
  const requests = [];
  let dropped = 0;
  for (const file of files) {
    let used = 0;
    for (const need of file.needs ?? []) {
      const path = String(need.path ?? '').trim();
      if (!path || changed.has(path) || noise.test(path)) { dropped++; continue; }
      if (seen.has(path) || used >= perFileLimit || requests.length >= totalLimit) { dropped++; continue; }
      seen.add(path);
      used += 1;
      requests.push({ op: need.op === 'list_dir' ? 'list_dir' : 'get_file', path });
    }
  }
  return { requests, dropped };
}

// timeIt runs fn (after 3 warm-up calls) until minMs of process CPU time and
// 5 calls have passed; CPU time (user+system, all threads, so GC counts) is
// the figure to compare, as on the Go side.
function timeIt(fn, minMs) {
  for (let i = 0; i < 3; i++) fn(); // warm up the JIT
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };
  let runs = 0;
  const cpu0 = cpu();
  const wall0 = process.hrtime.bigint();
  while (runs < 5 || cpu() - cpu0 < minMs * 1e6) {
    fn();
    runs++;
  }
  return {
    cpuNsPerOp: Math.round((cpu() - cpu0) / runs),
    wallNsPerOp: Number((process.hrtime.bigint() - wall0) / BigInt(runs)),
    runs,
  };
}

const input = fs.readFileSync(process.argv[2], 'utf8');
const scoutText = JSON.stringify(JSON.parse(input).scout);
const toItems = (scout) => scout.files.map((f) => ({ json: f }));

const out = referenceNeeds(toItems(JSON.parse(scoutText)));
if (process.argv[3]) {
  fs.writeFileSync(process.argv[3], JSON.stringify(out.map((i) => i.json).filter((r) => r.path !== undefined)));
}
const parsed = toItems(JSON.parse(scoutText));
const a = timeIt(() => referenceNeeds(parsed), 2000);
const b = timeIt(() => referenceNeeds(toItems(JSON.parse(scoutText))), 2000);
const c = timeIt(() => referenceNeedsNoBreak(toItems(JSON.parse(scoutText))), 2000);
const line = (name, t) => `${name}_cpu_ns_per_op=${t.cpuNsPerOp} ${name}_wall_ns_per_op=${t.wallNsPerOp} ${name}_runs=${t.runs}`;
console.log(`node_version=${process.version} node_input_bytes=${scoutText.length}`);
console.log(`node_ref_requests=${out.length}`);
console.log(line('node_ref', a));
console.log(line('node_ref_parse', b));
console.log(line('node_nobreak_parse', c));
