// Computes the page's opening example (the default state) with the built engine and writes the
// reply to build/first-result.json, which the page bundles: the first tables are drawn from it
// while the worker and its engine are still starting. The same engine, the same request, so the
// same bits as the worker would send. Typed arrays travel as base64 of their bytes (exact, and
// -Infinity survives).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { loadAttention } = await import(path.join(root, 'dist/lib/attention.node.mjs'));
const { createEngineApi } = await import(path.join(root, 'web/src/engine/api.mjs'));
const { defaultState, buildRequest } = await import(path.join(root, 'web/src/state/index.mjs'));

const api = createEngineApi(loadAttention);
await api.load(true);
const { request } = buildRequest(defaultState());
const reply = api.run(request);
if (reply.error) throw new Error(`the opening example failed: ${reply.error.message}`);

// key: the request as the page will spell it (JSON.stringify), to answer only that request
const packed = JSON.stringify({ key: JSON.stringify(request), reply }, (key, value) =>
  value instanceof Float32Array ? { f32: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') } : value);
mkdirSync(path.join(root, 'build'), { recursive: true });
writeFileSync(path.join(root, 'build/first-result.json'), `${packed}\n`);
console.log(`first result: build/first-result.json (${packed.length} bytes)`);
