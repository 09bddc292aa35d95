// Reads a JSON array of [pattern, flags] on stdin; prints a JSON array of
// V8's error message for each (or "" when V8 compiles the regexp literal).
// Used by TestRegExpDifferential in pipeline/gate/jsregexp (skipped when node is absent).
import fs from 'node:fs';
import vm from 'node:vm';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(input.map(([p, f]) => {
  try { new vm.Script('/' + p + '/' + f); return ''; } catch (e) { return String(e.message); }
})));
