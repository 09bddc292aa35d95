// Prints the executions of an n8n (2.8.4) Postgres database as one JSON
// array, for scripts/e2e-scale.sh: the shape of ../n8n-execution.js (with
// createdAt: when main enqueued it) plus the pull request
// the webhook named (repoSlug, prId, head). Run with NODE_PATH pointing at
// the n8n install's node_modules (it uses n8n's own pg and flatted).
//
//   node executions-pg.js postgres://user@127.0.0.1:PORT/db
'use strict';
const { Client } = require('pg');
const { shape } = require('../n8n-execution.js');

(async () => {
  const db = new Client({ connectionString: process.argv[2] });
  await db.connect();
  const { rows } = await db.query(`SELECT e.id, e.status, e.finished, e.mode, e."createdAt", e."startedAt", e."stoppedAt",
      e."workflowId", d.data FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id ORDER BY e.id`);
  await db.end();
  const ms = (v) => (v ? new Date(v).getTime() : null);
  const out = rows.map((r) => {
    const ex = shape(r, ms);
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
