// Issue 28, files: every table of names looked up as own names only, JSON nested too deeply,
// zip bombs in .npz, shapes no tensor can have. Files are written here by the test's own writers
// (Node's Buffer, fflate's deflate), not by the code under test.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';

import { parseSafetensors, parseNpy, parseNpz, parseTensorJson, readZip, MAX_INFLATED_BYTES } from '../../../../web/src/layers/formats.mjs';
import { readWeightsFile, parseInputs } from '../../../../web/src/layers/load.mjs';
import { findLayers } from '../../../../web/src/layers/layouts.mjs';
import { stateFromFragment } from '../../../../web/src/state/index.mjs';
import { own, hasOwnName } from '../../../../web/src/shared/own.mjs';
import { jsonDepth, MAX_JSON_DEPTH } from '../../../../web/src/shared/json-depth.mjs';

const OBJECT_NAMES = ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

function safetensorsFile(header, data = Buffer.alloc(0)) {
  let json = Buffer.from(JSON.stringify(header));
  json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return new Uint8Array(Buffer.concat([length, json, data]));
}

function npyFile(descr, shape, data) {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  return new Uint8Array(Buffer.concat([prefix, Buffer.from(header, 'latin1'), data]));
}

const throwsFormat = async (call, pattern) => {
  await assert.rejects(async () => call(), (error) => {
    assert.equal(error.name, 'FileFormatError', error.message);
    assert.match(error.message, pattern);
    return true;
  });
};

describe('issue 28: tables of names are read as own names only', () => {
  it('a safetensors dtype of toString, __proto__, constructor … is a dtype safetensors does not define', async () => {
    for (const dtype of [...OBJECT_NAMES, 'f32', 4, null]) {
      const file = safetensorsFile({ w: { dtype, shape: [1], data_offsets: [0, 4] } }, Buffer.alloc(4));
      const expected = `tensor "w" has dtype ${JSON.stringify(dtype)}, which safetensors does not define`;
      await assert.rejects(async () => parseSafetensors(file), (error) => error.name === 'FileFormatError' && error.message === expected, expected);
    }
    // and a known one still reads: F32 1.5
    const good = safetensorsFile({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, Buffer.from(new Float32Array([1.5]).buffer));
    assert.equal(parseSafetensors(good).tensors.get('w').data[0], 1.5);
  });

  it(".npy descr 'toString', '__proto__' … is a dtype the lab does not read, with the name in the message", async () => {
    for (const descr of [...OBJECT_NAMES, '>f4', 'i4']) {
      await throwsFormat(() => parseNpy(npyFile(descr, [1], Buffer.alloc(4)), 'x.npy'), new RegExp(`x\\.npy has dtype "${descr.replace(/[<>]/g, '.')}"; the lab reads little-endian floats`));
    }
    assert.equal(parseNpy(npyFile('<f4', [1], Buffer.from(new Float32Array([0.25]).buffer)), 'x.npy').data[0], 0.25);
  });

  it('a layout\'s head count is not taken from an inherited name in __metadata__ (own names only)', () => {
    const metadata = JSON.parse('{"__proto__": "7", "constructor": "5"}');
    const eye = (n) => Float32Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0));
    const tensors = new Map([['wq', { shape: [1, 4, 4], data: eye(4) }], ['wk', { shape: [1, 4, 4], data: eye(4) }], ['wv', { shape: [1, 4, 4], data: eye(4) }]]);
    const [layer] = findLayers(tensors, metadata);
    assert.equal(layer.heads, 1);
  });

  it('own() and hasOwnName() find own entries and nothing inherited, for strings and numbers', () => {
    const table = { F32: 4, 768: 12 };
    for (const name of OBJECT_NAMES) {
      assert.equal(own(table, name), undefined, name);
      assert.equal(own(table, name, 'fallback'), 'fallback', name);
      assert.equal(hasOwnName(table, name), false, name);
    }
    assert.equal(own(table, 'F32'), 4);
    assert.equal(own(table, 768), 12);
    assert.equal(own(table, { toString: () => 'F32' }), undefined, 'an object is not a name');
  });
});

describe('issue 28: JSON nested too deeply says so, and at what depth the reader stops', () => {
  const nested = (depth) => `{"w": ${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;

  it('a tensor file nested 100,000 deep is refused with the depth, not "Maximum call stack size exceeded"', async () => {
    for (const depth of [100_000, 5_000, MAX_JSON_DEPTH + 1]) {
      await throwsFormat(() => parseTensorJson(nested(depth)), /nested too deeply: the lab reads JSON up to 64 levels/);
    }
    // 64 levels is read (a tensor of shape [1, 1, …, 1]); brackets inside strings do not count
    assert.equal(parseTensorJson(nested(MAX_JSON_DEPTH)).tensors.get('w').data[0], 1);
    assert.equal(jsonDepth(`{"[[[[": "]]]]\\"[[[", "a": [[1]]}`), 3);
  });

  it('a safetensors header, pasted inputs, a weights file and a link nested 100,000 deep get the same message', async () => {
    const deep = `{"x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const header = Buffer.from(deep);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    await throwsFormat(() => parseSafetensors(new Uint8Array(Buffer.concat([length, header]))), /header is JSON, but it is nested too deeply.*64 levels/);
    assert.match(parseInputs(deep, 4).problem, /nested too deeply.*64 levels/);
    const read = await readWeightsFile(new Blob([deep]), 'deep.json');
    assert.match(read.problem, /^deep\.json: the file is JSON, but it is nested too deeply/);
    const link = stateFromFragment(`#lab=${encodeURIComponent(`{"sentence": "a", "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`)}`);
    assert.match(link.problems[0].message, /nested too deeply: the lab reads JSON up to 64 levels/);
  });
});

// A zip written byte by byte: each entry { name, data (the bytes stored), size (declared), method },
// optionally several directory records pointing at one local entry.
function zipFile(entries, { directoryPointsAt = null } = {}) {
  const locals = [];
  const offsets = [];
  let at = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    offsets.push(at);
    locals.push(local, name, e.data);
    at += 30 + name.length + e.data.length;
  }
  const records = (directoryPointsAt ?? entries.map((_, i) => i)).map((i, k) => {
    const e = entries[i];
    const name = Buffer.from(directoryPointsAt ? `copy${k}.npy` : e.name);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(e.method, 10);
    record.writeUInt32LE(e.data.length, 20);
    record.writeUInt32LE(e.size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offsets[i], 42);
    return Buffer.concat([record, name]);
  });
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(records.length, 8);
  end.writeUInt16LE(records.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(at, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

describe('issue 28: zip bombs in .npz are refused at a stated limit', () => {
  const MiB = 1 << 20;

  it('entries declaring more than the limit in total are refused before anything is inflated', async () => {
    const small = deflateRawSync(Buffer.alloc(1000));
    const entries = [0, 1, 2].map((i) => ({ name: `a${i}.npy`, data: small, size: 100 * MiB, method: 8 }));
    await throwsFormat(() => readZip(zipFile(entries)), new RegExp(`declare 314,572,800 bytes uncompressed up to "a2\\.npy"; the lab inflates at most ${MAX_INFLATED_BYTES.toLocaleString('en')} bytes`));
    assert.equal(MAX_INFLATED_BYTES, 256 * MiB);
  });

  it('12 entries sharing one 100 MiB stream are refused as sharing their data, unread', async () => {
    const stream = deflateRawSync(Buffer.alloc(100 * MiB));  // about 100 KB
    const entries = [{ name: 'a.npy', data: stream, size: 20 * MiB, method: 8 }];
    const started = Date.now();
    await throwsFormat(() => readZip(zipFile(entries, { directoryPointsAt: Array(12).fill(0) })), /"copy0\.npy" and "copy1\.npy" share their data: the file is damaged, or a zip bomb/);
    assert.ok(Date.now() - started < 1000, 'refused from the directory alone');
  });

  it('an entry that inflates past its declared size stops there, whatever the stream holds', async () => {
    for (const [declared, actual] of [[1000, 64 * MiB], [4 * MiB, 4 * MiB + 1], [0, 10]]) {
      const stream = deflateRawSync(Buffer.alloc(actual, 7));
      await throwsFormat(() => readZip(zipFile([{ name: 'x.npy', data: stream, size: declared, method: 8 }])),
        new RegExp(`"x\\.npy" inflates to more than the ${declared.toLocaleString('en')} bytes its directory declares`));
    }
  });

  it('a real .npz inflates in pieces and the page keeps its turns: timers run while 64 MiB are inflated', async () => {
    const values = 16 * MiB / 4 * 4;  // 16,777,216 float32: the most one array may hold
    const npy = npyFile('<f4', [values / 4, 4], Buffer.alloc(values * 4));
    const stream = deflateRawSync(npy);
    const file = zipFile([{ name: 'x.npy', data: stream, size: npy.length, method: 8 }]);
    let ticks = 0;
    let worstGap = 0;
    let last = Date.now();
    let running = true;
    const tick = () => {
      const now = Date.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
      ticks++;
      if (running) setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
    const started = Date.now();
    const { tensors } = await parseNpz(file);
    const inflating = Date.now() - started;
    running = false;
    assert.deepEqual(tensors.get('x').shape, [values / 4, 4]);
    assert.ok(ticks >= 3, `${ticks} timer turns in ${inflating} ms of reading`);
    // the whole read takes far longer than any one wait (the page froze 34 s before: one wait as long as
    // the read). On a loaded machine the process itself is descheduled for a few hundred ms (282 ms in a
    // check at load 19), so a wait is held to a fifth of the read, and never required under 250 ms.
    assert.ok(worstGap < Math.max(250, inflating / 5), `a timer waited ${worstGap} ms (reading took ${inflating} ms)`);
  });

  it('a shape no tensor can have ([2⁵³−1, 0]: no values, but a width) is refused in every format', async () => {
    const huge = 2 ** 53 - 1;
    await throwsFormat(() => parseSafetensors(safetensorsFile({ wq: { dtype: 'F32', shape: [huge, 0], data_offsets: [0, 0] } })),
      /shape \[9007199254740991,0\]; a shape is a list of whole numbers from 0 to 16,777,216/);
    await throwsFormat(() => parseNpy(npyFile('<f4', [huge, 0], Buffer.alloc(0)), 'x.npy'), /not whole numbers from 0 to 16,777,216/);
    await throwsFormat(() => parseTensorJson(JSON.stringify({ wq: { shape: [0, 16_777_217], data: [] } })), /from 0 to 16,777,216/);
  });
});
