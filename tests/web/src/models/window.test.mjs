// Reading while staging (web/src/models/tensors.mjs): small tensors come from one read of up to
// WINDOW_BYTES of their file (the window), not one read each; the values are the file's bytes, a
// tensor the window does not hold is read anew, and a tensor past the file's end is still refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { catalogue, readBuffer, readTensor, readTensorInto, WINDOW_BYTES } from '../../../../web/src/models/tensors.mjs';
import { safetensorsBytes } from './copies.mjs';

// a Blob that counts the slices read from it; `cut`: its bytes after that are gone when read (the file
// changed after its header was read), its size still the whole
function counted(bytes, cut = bytes.length) {
  const blob = new Blob([bytes.subarray(0, cut)]);
  const file = { name: 'model.safetensors', size: bytes.length, reads: 0, slice: (a, b) => { file.reads++; return blob.slice(a, b); } };
  return file;
}

const floats = (count, seed) => Float32Array.from({ length: count }, (_, i) => Math.sin(seed * 1000 + i));
const tensorOf = (name, values) => ({ name, dtype: 'F32', shape: [values.length], bytes: new Uint8Array(values.buffer) });

test('forty small tensors come from one read, each the file\'s values; one past the window is read anew', async () => {
  const small = Array.from({ length: 40 }, (_, t) => tensorOf(`t${t}`, floats(100 + t, t)));
  const big = tensorOf('big', floats(WINDOW_BYTES / 4 + 10, 99));  // more than a window: its own reads, in pieces
  const file = counted(safetensorsBytes([...small, big]));
  const { tensors } = await catalogue(new Map([['model.safetensors', file]]));
  file.reads = 0;
  const reading = readBuffer();
  for (const t of small) {
    const values = await readTensor(tensors.get(t.name), null, reading);
    assert.deepEqual(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), t.bytes, t.name);
  }
  assert.equal(file.reads, 1, 'the small tensors: one read');
  const got = new Float32Array(WINDOW_BYTES / 4 + 10);
  await readTensorInto(tensors.get('big'), (offset, values) => got.set(values, offset), null, reading);
  assert.deepEqual(new Uint8Array(got.buffer), big.bytes);
  // the window was read into by the big tensor's pieces: a small tensor again is a new read
  const before = file.reads;
  const again = await readTensor(tensors.get('t3'), null, reading);
  assert.deepEqual(new Uint8Array(again.buffer, again.byteOffset, again.byteLength), small[3].bytes);
  assert.equal(file.reads, before + 1);
});

test('a file cut short after its header was read is refused through the window as without it', async () => {
  const tensors = [tensorOf('a', floats(64, 1)), tensorOf('b', floats(64, 2))];
  const bytes = safetensorsBytes(tensors);
  for (const reading of [readBuffer(), null]) {
    const { tensors: found } = await catalogue(new Map([['model.safetensors', counted(bytes, bytes.length - 100)]]));
    assert.deepEqual(Array.from(await readTensor(found.get('a'), null, reading)), Array.from(floats(64, 1)));
    await assert.rejects(readTensor(found.get('b'), null, reading), /could not be read whole \(156 of 256 bytes\)/);
  }
});
