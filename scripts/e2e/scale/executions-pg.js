// Prints the executions of an n8n (2.8.4) Postgres database as one JSON
// array, for scripts/e2e-scale.sh: the fields of ../n8n-executions.js
// (status, wall time, per node start, execution time, items, error, first
// output item) plus createdAt (when main enqueued it) and the pull request
// the webhook named (repoSlug, prId, head). Run with NODE_PATH pointing at
// the n8n install's node_modules (it uses n8n's own pg and flatted).
//
//   node executions-pg.js postgres://user@127.0.0.1:PORT/db
'use strict';
const { Client } = require('pg');
const { parse } = require('flatted');

const errText = (e) => [e.message || String(e), e.description, ...(e.messages || [])].filter(Boolean).join(' | ');

(async () => {
  const db = new Client({ connectionString: process.argv[2] });
  await db.connect();
  const { rows } = await db.query(`SELECT e.id, e.status, e.finished, e.mode, e."createdAt", e."startedAt", e."stoppedAt",
      e."workflowId", d.data FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id ORDER BY e.id`);
  await db.end();
  const ms = (v) => (v ? new Date(v).getTime() : null);
  const out = rows.map((r) => {
    const ex = {
      id: Number(r.id), status: r.status, finished: !!r.finished, mode: r.mode, workflowId: r.workflowId,
      createdAt: ms(r.createdAt), startedAt: ms(r.startedAt), stoppedAt: ms(r.stoppedAt),
      lastNode: null, error: null, repoSlug: null, prId: null, head: null, nodes: [],
    };
    ex.wallMs = ex.startedAt && ex.stoppedAt ? ex.stoppedAt - ex.startedAt : null;
    if (!r.data) return ex;
    let data;
    try {
      data = parse(r.data);
    } catch (e) {
      ex.error = `cannot parse execution data: ${e.message}`;
      return ex;
    }
    const rd = (data && data.resultData) || {};
    ex.lastNode = rd.lastNodeExecuted || null;
    if (rd.error) ex.error = errText(rd.error);
    for (const [name, runs] of Object.entries(rd.runData || {})) {
      for (const run of runs) {
        const main = (run.data && run.data.main) || [];
        const items = main.reduce((n, o) => n + ((o && o.length) || 0), 0);
        const first = main.find((o) => o && o.length);
        ex.nodes.push({
          name, startTime: run.startTime, executionTime: run.executionTime, status: run.executionStatus || null,
          items, error: run.error ? errText(run.error) : null, output: first ? first[0].json : null,
        });
      }
    }
    ex.nodes.sort((a, b) => a.startTime - b.startTime);
    const hook = ex.nodes.find((n) => n.name === 'Bitbucket PR webhook');
    const body = (hook && hook.output && hook.output.body) || {};
    const pr = body.pullrequest;
    if (pr) {
      ex.prId = pr.id;
      ex.head = pr.source && pr.source.commit && pr.source.commit.hash;
      const full = (body.repository && body.repository.full_name) ||
        (pr.destination && pr.destination.repository && pr.destination.repository.full_name) || '';
      ex.repoSlug = full.split('/')[1] || null;
    }
    return ex;
  });
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  console.error(`read executions: ${e.message}`);
  process.exit(1);
});
