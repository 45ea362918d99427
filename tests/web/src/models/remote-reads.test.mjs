// A model's files read in a worker of their own (web/src/models/remote-reads.mjs), with a stand-in
// Worker that runs, as web/read-worker.mjs does, the real bytesInto on each request, the buffers moved
// both ways (structuredClone with transfer, as postMessage does). Checked: the bytes are the file's, the
// buffer given is moved to the worker (not copied) and comes back; a worker that fails to start, errs,
// or never answers makes every read in flight and after it here, right; a read that fails there fails
// here with its name and message; close() moves the pool's buffers to the worker and stops it; and a
// PieceReader reading through it gives a 20 MiB file's bytes whole. (In Chromium, with the real worker:
// tests/e2e/models-reading.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { remoteReads } from '../../../../web/src/models/remote-reads.mjs';
import { PieceReader, bytesInto, PIECE_BYTES } from '../../../../web/src/models/reader.mjs';

const fileOf = (length, seed = 7) => new Blob([Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 255)]);
const bytesOfBlob = async (blob, start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer());
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

// A Worker stand-in: `mode` 'answers' (reads as read-worker.mjs does), 'silent' (never answers),
// 'fails' (an error event once started), 'readFails' (each read answered with a NotReadableError)
function standIn(mode) {
  const made = [];
  class StandIn extends EventTarget {
    constructor(url, options) {
      super();
      Object.assign(this, { url, options, requests: [], kept: null, terminated: false });
      made.push(this);
      if (mode === 'fails') tick().then(() => this.dispatchEvent(new Event('error')));
    }

    postMessage(data, transfer = []) {
      const moved = structuredClone(data, { transfer });  // as postMessage: the buffers leave this side
      if (this.terminated) return;
      if (moved.keep) {
        this.kept = moved.keep;
        return;
      }
      this.requests.push(moved);
      if (mode === 'answers') this.#answer(moved);
      if (mode === 'readFails') tick().then(() => this.#reply({ id: moved.id, error: { name: 'NotReadableError', message: 'the file could not be read' } }));
    }

    async #answer({ id, blob, start, end, buffer }) {
      const bytes = await bytesInto(blob, start, end, buffer);
      this.#reply({ id, buffer: bytes.buffer, length: bytes.byteLength }, [bytes.buffer]);
    }

    #reply(data, transfer = []) {
      if (!this.terminated) this.dispatchEvent(new MessageEvent('message', { data: structuredClone(data, { transfer }) }));
    }

    terminate() {
      this.terminated = true;
    }
  }
  return { StandIn, made };
}

test('reads go to the worker: the file\'s bytes, the buffer given moved there and back', async () => {
  const { StandIn, made } = standIn('answers');
  const remote = remoteReads('read-worker.js', { Worker: StandIn });
  assert.equal(made[0].options.type, 'module');
  const file = fileOf(5000);
  const given = new ArrayBuffer(4096);
  const bytes = await remote.read(file, 100, 4100, given);
  assert.equal(given.byteLength, 0, 'the buffer given was moved to the worker, not copied');
  assert.equal(bytes.buffer.byteLength, 4096, 'the bytes come back in that buffer');
  assert.deepEqual(bytes, await bytesOfBlob(file, 100, 4100));
  // no buffer: one made there; the file's end: the bytes there are
  assert.deepEqual(await remote.read(file, 4900, 6000, null), await bytesOfBlob(file, 4900, 5000));
  assert.equal(made[0].requests.length, 2);
  assert.equal(remote.where(), 'worker');
});

// a failing worker is given up at its error event, not after the stall time (60 s here: the test's 5 s
// timeout fails it if it waited)
for (const [mode, options] of [['fails', { stallMs: 60000 }], ['silent', { stallMs: 30 }]]) {
  test(`a worker that ${mode === 'fails' ? 'fails' : 'never answers'}: the reads in flight and after it made here, right`, { timeout: 5000 }, async () => {
    const { StandIn, made } = standIn(mode);
    const remote = remoteReads('read-worker.js', { Worker: StandIn, ...options });
    const file = fileOf(30000, 3);
    const inFlight = [remote.read(file, 0, 10000, new ArrayBuffer(10000)), remote.read(file, 10000, 20000, null)];
    assert.deepEqual(await inFlight[0], await bytesOfBlob(file, 0, 10000));
    assert.deepEqual(await inFlight[1], await bytesOfBlob(file, 10000, 20000));
    assert.equal(made[0].terminated, true, 'the worker is stopped');
    assert.equal(remote.where(), 'here');
    const count = made[0].requests.length;
    assert.deepEqual(await remote.read(file, 20000, 30000, new ArrayBuffer(10000)), await bytesOfBlob(file, 20000, 30000));
    assert.equal(made[0].requests.length, count, 'later reads are not sent to it');
  });
}

test('a read that fails in the worker fails here, with its name and message', async () => {
  const { StandIn } = standIn('readFails');
  const remote = remoteReads('read-worker.js', { Worker: StandIn });
  await assert.rejects(remote.read(fileOf(100), 0, 50, null), { name: 'NotReadableError', message: 'the file could not be read' });
  assert.equal(remote.where(), 'worker', 'an answer, not a failed worker');
});

test('close() moves the buffers to the worker and stops it; a read after it is made here', async () => {
  const { StandIn, made } = standIn('answers');
  const remote = remoteReads('read-worker.js', { Worker: StandIn });
  const pool = [new ArrayBuffer(64), new ArrayBuffer(128)];
  remote.close(pool);
  assert.deepEqual(pool.map((b) => b.byteLength), [0, 0], 'moved, not copied');
  assert.deepEqual(made[0].kept.map((b) => b.byteLength), [64, 128]);
  assert.equal(made[0].terminated, true);
  const file = fileOf(300);
  assert.deepEqual(await remote.read(file, 10, 290, null), await bytesOfBlob(file, 10, 290));
  assert.equal(made[0].requests.length, 0);
});

test('no Worker here, or one that cannot be made: null (the reads are made here)', () => {
  assert.equal(remoteReads('read-worker.js', { Worker: undefined }), null);
  assert.equal(remoteReads(null, { Worker: standIn('answers').StandIn }), null);
  class Refused {
    constructor() {
      throw new DOMException('refused by the Content-Security-Policy', 'SecurityError');
    }
  }
  assert.equal(remoteReads('read-worker.js', { Worker: Refused }), null);
});

test('a PieceReader reading through the worker: a 20 MiB file\'s bytes, piece by piece and read ahead', async () => {
  const { StandIn, made } = standIn('answers');
  const remote = remoteReads('read-worker.js', { Worker: StandIn });
  const size = 20 * 2 ** 20 + 12345;
  const file = fileOf(size, 11);
  const whole = await bytesOfBlob(file, 0, size);
  const reading = new PieceReader({ ahead: 2, read: remote.read });
  for (let at = 0; at < size;) {
    const to = Math.min(size, at + 3 * 2 ** 20);  // as the lab asks: a chunk of values at a time
    const bytes = await reading.bytes(file, at, to);
    const at0 = at;
    assert.ok(bytes.length > 0 && bytes.length <= to - at);
    assert.ok(bytes.every((byte, i) => byte === whole[at0 + i]), `the bytes from ${at}`);
    at += bytes.length;
  }
  await reading.settled();
  assert.ok(made[0].requests.length >= size / PIECE_BYTES, `every piece read in the worker (${made[0].requests.length} reads)`);
  const buffers = reading.buffers();
  assert.ok(buffers.length >= 1 && buffers.length <= 3, `the pool: ${buffers.length} buffers`);
  remote.close(buffers);
  assert.equal(made[0].kept.length, buffers.length);
});
