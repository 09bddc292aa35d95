// Prints the executions of an n8n (2.8.4) SQLite database as one JSON array,
// for scripts/e2e-n8n.sh: status, wall time, the last node and, per node that
// ran, its start, execution time, status, item count, error and first output
// item. Run with NODE_PATH pointing at the n8n install's node_modules (it
// uses n8n's own sqlite3 and flatted packages).
//
//   node n8n-executions.js <database.sqlite>
'use strict';
const sqlite3 = require('sqlite3');
const { parse } = require('flatted');

// errText is an n8n error's message, its description and, for an HTTP
// Request node, the full answer ("400 - {body}"): n8n's description is the
// body's `error` field, the service's `message` is only in the full answer.
const errText = (e) => [e.message || String(e), e.description, ...(e.messages || [])].filter(Boolean).join(' | ');

const dbPath = process.argv[2];
if (!dbPath) {
  console.error('usage: node n8n-executions.js <database.sqlite>');
  process.exit(2);
}
const db = new sqlite3.Database(dbPath, sqlite3.OPEN_READONLY);
const sql = `SELECT e.id, e.status, e.finished, e.mode, e.startedAt, e.stoppedAt, e.workflowId, d.data
  FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id ORDER BY e.id`;
db.all(sql, (err, rows) => {
  if (err) {
    console.error(`read executions: ${err.message}`);
    process.exit(1);
  }
  const out = rows.map((r) => {
    const ms = (v) => (v ? new Date(typeof v === 'string' && !v.endsWith('Z') ? v.replace(' ', 'T') + 'Z' : v).getTime() : null);
    const ex = {
      id: Number(r.id), status: r.status, finished: !!r.finished, mode: r.mode, workflowId: r.workflowId,
      startedAt: ms(r.startedAt), stoppedAt: ms(r.stoppedAt), lastNode: null, error: null, nodes: [],
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
        const items = main.reduce((n, out) => n + ((out && out.length) || 0), 0);
        const first = main.find((o) => o && o.length);
        ex.nodes.push({
          name, startTime: run.startTime, executionTime: run.executionTime, status: run.executionStatus || null,
          items, error: run.error ? errText(run.error) : null,
          output: first ? first[0].json : null,
        });
      }
    }
    ex.nodes.sort((a, b) => a.startTime - b.startTime);
    return ex;
  });
  process.stdout.write(JSON.stringify(out));
  db.close();
});
