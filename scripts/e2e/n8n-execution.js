// The shape both e2e runs read an n8n (2.8.4) execution in: status, wall
// time, the last node and, per node that ran, its start, execution time,
// status, item count, error and first output item. Used by
// n8n-executions.js (SQLite) and scale/executions-pg.js (Postgres); needs
// NODE_PATH at the n8n install's node_modules (n8n's own flatted).
'use strict';
const { parse } = require('flatted');

// errText is an n8n error's message, its description and, for an HTTP
// Request node, the full answer ("400 - {body}"): n8n's description is the
// body's `error` field, the service's `message` is only in the full answer.
const errText = (e) => [e.message || String(e), e.description, ...(e.messages || [])].filter(Boolean).join(' | ');

// shape turns one execution_entity row joined with its execution_data into
// the JSON the checkers read; ms reads the database's timestamps.
function shape(r, ms) {
  const ex = {
    id: Number(r.id), status: r.status, finished: !!r.finished, mode: r.mode, workflowId: r.workflowId,
    createdAt: ms(r.createdAt), startedAt: ms(r.startedAt), stoppedAt: ms(r.stoppedAt), lastNode: null, error: null, nodes: [],
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
  return ex;
}

module.exports = { shape };
