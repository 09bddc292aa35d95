// Prints the executions of an n8n (2.8.4) SQLite database as one JSON array,
// for scripts/e2e-n8n.sh, in the shape of n8n-execution.js. Run with
// NODE_PATH pointing at the n8n install's node_modules (it uses n8n's own
// sqlite3 and flatted packages).
//
//   node n8n-executions.js <database.sqlite>
'use strict';
const sqlite3 = require('sqlite3');
const { shape } = require('./n8n-execution.js');

const dbPath = process.argv[2];
if (!dbPath) {
  console.error('usage: node n8n-executions.js <database.sqlite>');
  process.exit(2);
}
// SQLite keeps UTC timestamps without a zone: "2026-12-02 01:02:03.456".
const ms = (v) => (v ? new Date(typeof v === 'string' && !v.endsWith('Z') ? v.replace(' ', 'T') + 'Z' : v).getTime() : null);
const db = new sqlite3.Database(dbPath, sqlite3.OPEN_READONLY);
const sql = `SELECT e.id, e.status, e.finished, e.mode, e.createdAt, e.startedAt, e.stoppedAt, e.workflowId, d.data
  FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id ORDER BY e.id`;
db.all(sql, (err, rows) => {
  if (err) {
    console.error(`read executions: ${err.message}`);
    process.exit(1);
  }
  process.stdout.write(JSON.stringify(rows.map((r) => shape(r, ms))));
  db.close();
});
