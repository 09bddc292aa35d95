// Reads a JSON array of {kind: "code"|"function", code} on stdin and prints a
// JSON array of {ok, message, line} — V8's verdict on each snippet wrapped as
// n8n wraps it (same wrappers as the n8n workflow corpus's check_v8.mjs).
// Used by the differential tests in pipeline/gate (they skip when node is absent).
import vm from 'node:vm';
import fs from 'node:fs';
const PRE = [
  'globalThis.global = globalThis', 'var module = { exports: {} }',
  'Object.getPrototypeOf = () => ({})', 'Reflect.getPrototypeOf = () => ({})',
  'Object.setPrototypeOf = () => false', 'Reflect.setPrototypeOf = () => false',
  'delete Error.prepareStackTrace', 'delete Error.captureStackTrace',
  'Object.defineProperty(Error, "prepareStackTrace", { configurable: false, writable: false, value: undefined })',
  'Object.defineProperty(Error, "captureStackTrace", { configurable: false, writable: false, value: undefined })',
  'Object.defineProperty = () => ({})', 'Object.defineProperties = () => ({})',
  '[Object, Function, Array, String, Number, Boolean, RegExp, Error, TypeError, RangeError, SyntaxError, ReferenceError, Promise, Symbol, Map, Set, WeakMap, WeakSet, Date, JSON, Math, Reflect, ArrayBuffer, DataView, Int8Array, Uint8Array, Float32Array, Float64Array].forEach((constructor) => { try { Object.freeze(constructor); } catch {} })',
];
const wrap = (k, c) => k === 'function'
  ? '(function (exports, require, module, __filename, __dirname) { ' + `module.exports = async function() {${c}\n}()` + '\n});'
  : [...PRE, `module.exports = async function VmCodeWrapper() {${c}\n}()`].join('; ');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = input.map(({ kind, code }) => {
  try {
    new vm.Script(wrap(kind, code), { filename: 'snippet.js' });
    return { ok: true };
  } catch (e) {
    const m = /^[^\n]*?:(\d+)\n/.exec(String(e && e.stack));
    return { ok: false, message: `${e.name}: ${e.message}`, line: m ? Number(m[1]) : 0 };
  }
});
process.stdout.write(JSON.stringify(out));
