// Reading while staging (web/src/models/reader.mjs): pieces of up to PIECE_BYTES, small tensors served
// from the piece that holds them rather than a read each, and pieces further in the file read ahead of
// their use. Whatever the order asked in and wherever a piece ends (within a value too), the values are
// the file's bytes; a file cut short is still refused, naming the tensor.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { catalogue, readBuffer, readTensor, readTensorInto } from '../../../../web/src/models/tensors.mjs';
import { PIECE_BYTES } from '../../../../web/src/models/reader.mjs';
import { safetensorsBytes, halfBits } from './copies.mjs';

// a Blob that logs the slices read from it ([start, end) each); `cut`: its bytes after that are gone
// when read (the file changed after its header was read), its size still the whole
function logged(bytes, cut = bytes.length) {
  const blob = new Blob([bytes.subarray(0, cut)]);
  const file = { name: 'model.safetensors', size: bytes.length, slices: [], slice: (a, b) => { file.slices.push([a, b]); return blob.slice(a, b); } };
  return file;
}

const floats = (count, seed) => Float32Array.from({ length: count }, (_, i) => Math.sin(seed * 1000 + i));
const tensorOf = (name, values) => ({ name, dtype: 'F32', shape: [values.length], bytes: new Uint8Array(values.buffer) });
const halves = (name, count, seed) => {
  const bits = Uint16Array.from({ length: count }, (_, i) => halfBits(Math.cos(seed + i)));
  return { name, dtype: 'F16', shape: [count], bytes: new Uint8Array(bits.buffer) };
};
const bytesOfValues = (values) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
// the same bytes, or the first that differs named (a diff of megabytes would not fit a message)
function sameBytes(got, want, what = '') {
  assert.equal(got.length, want.length, `${what}: length`);
  const at = got.findIndex((byte, i) => byte !== want[i]);
  assert.equal(at, -1, `${what}: byte ${at} differs`);
}

async function opened(tensors, cut) {
  const file = logged(safetensorsBytes(tensors), cut);
  const { tensors: found } = await catalogue(new Map([['model.safetensors', file]]));
  file.slices.length = 0;
  return { file, found };
}

async function wholeOf(tensor, reading) {
  const got = new Float32Array(tensor.shape.reduce((a, b) => a * b, 1));
  await readTensorInto(tensor, (offset, values) => got.set(values, offset), null, reading);
  return got;
}

test('without read-ahead: forty small tensors come from one read; a big one in pieces; one let go is read anew', async () => {
  const small = Array.from({ length: 40 }, (_, t) => tensorOf(`t${t}`, floats(100 + t, t)));
  const big = tensorOf('big', floats(PIECE_BYTES / 4 + 10, 99));
  const { file, found } = await opened([...small, big]);
  const reading = readBuffer({ ahead: 0 });
  for (const t of small) sameBytes(bytesOfValues(await readTensor(found.get(t.name), null, reading)), t.bytes, t.name);
  assert.equal(file.slices.length, 1, 'the small tensors: one read');
  sameBytes(bytesOfValues(await wholeOf(found.get('big'), reading)), big.bytes);
  const before = file.slices.length;
  sameBytes(bytesOfValues(await readTensor(found.get('t3'), null, reading)), small[3].bytes);
  assert.equal(file.slices.length, before + 1);
});

test('with read-ahead: the next pieces are being read before they are asked for, in any order asked the values are the file\'s', async () => {
  const tensors = [tensorOf('a', floats(1000, 1)), tensorOf('big', floats(3 * PIECE_BYTES / 4 + 7, 2)), tensorOf('z', floats(500, 3))];
  const { file, found } = await opened(tensors);
  const reading = readBuffer({ ahead: 2 });
  sameBytes(bytesOfValues(await readTensor(found.get('a'), null, reading)), tensors[0].bytes);
  assert.equal(file.slices.length, 3, 'one piece asked for, two read ahead');
  const [first, second, third] = file.slices;
  assert.deepEqual([second[0], third[0]], [first[1], second[1]], 'each piece where the one before ends');
  sameBytes(bytesOfValues(await wholeOf(found.get('big'), reading)), tensors[1].bytes);
  sameBytes(bytesOfValues(await readTensor(found.get('z'), null, reading)), tensors[2].bytes);
  // the file's order backwards: nothing read ahead is of use, every value still the file's
  const backwards = readBuffer({ ahead: 2 });
  for (const t of [...tensors].reverse()) {
    const got = t.name === 'big' ? await wholeOf(found.get(t.name), backwards) : await readTensor(found.get(t.name), null, backwards);
    sameBytes(bytesOfValues(got), t.bytes, t.name);
  }
  await backwards.settled();
  const pool = backwards.buffers().length;
  assert.ok(pool <= 6, `a small pool of buffers (${pool})`);
});

test('a piece that ends within a value: the value is read whole, F16 and F32 alike', async () => {
  // an F16 tensor of odd length puts the F32 one after it 2 bytes off the pieces' 4-byte grid
  for (const ahead of [0, 2]) {
    const tensors = [halves('h', 3, 1), tensorOf('big', floats(PIECE_BYTES / 2 + 3, 5)), halves('h2', PIECE_BYTES / 2 + 1, 7)];
    const { found } = await opened(tensors);
    const reading = readBuffer({ ahead });
    await readTensor(found.get('h'), null, reading);
    sameBytes(bytesOfValues(await wholeOf(found.get('big'), reading)), tensors[1].bytes, `ahead ${ahead}`);
    const h2 = await wholeOf(found.get('h2'), reading);
    const direct = await wholeOf(found.get('h2'), null);
    sameBytes(bytesOfValues(h2), bytesOfValues(direct), `ahead ${ahead}: F16 across pieces`);
  }
});

test('a file cut short after its header was read is refused with and without read-ahead, naming the tensor', async () => {
  const tensors = [tensorOf('a', floats(64, 1)), tensorOf('b', floats(64, 2))];
  for (const reading of [readBuffer(), readBuffer({ ahead: 0 }), null]) {
    const { found } = await opened(tensors, safetensorsBytes(tensors).length - 100);
    assert.deepEqual(Array.from(await readTensor(found.get('a'), null, reading)), Array.from(floats(64, 1)));
    await assert.rejects(readTensor(found.get('b'), null, reading), /tensor "b" could not be read whole \(156 of 256 bytes\)/);
  }
  // a big tensor cut within its second piece, read piece by piece
  const big = [tensorOf('a', floats(10, 1)), tensorOf('big', floats(PIECE_BYTES / 2, 2))];
  for (const ahead of [0, 2]) {
    const { found } = await opened(big, safetensorsBytes(big).length - 1000);
    const reading = readBuffer({ ahead });
    await readTensor(found.get('a'), null, reading);
    await assert.rejects(wholeOf(found.get('big'), reading), /tensor "big" could not be read whole/, `ahead ${ahead}`);
  }
});

test('a tensor over two pieces is joined whole, a small one behind them read on its own, the pieces kept', async () => {
  // GPT-2's layout: a block's norm first in the file, then 5 MiB, then 6 MiB (c_attn: asked whole)
  // that the 8 MiB pieces cut in two, then more
  const tensors = [tensorOf('norm', floats(768, 1)), tensorOf('pad', floats(5 * 2 ** 18, 2)), tensorOf('mid', floats(6 * 2 ** 18, 3)),
    tensorOf('bias', floats(2304, 4)), tensorOf('next', floats(3 * 2 ** 18, 5))];
  const { file, found } = await opened(tensors);
  const reading = readBuffer({ ahead: 2 });
  sameBytes(bytesOfValues(await wholeOf(found.get('pad'), reading)), tensors[1].bytes, 'pad');
  const before = file.slices.length;
  sameBytes(bytesOfValues(await readTensor(found.get('mid'), null, reading)), tensors[2].bytes, 'mid, joined');
  sameBytes(bytesOfValues(await readTensor(found.get('bias'), null, reading)), tensors[3].bytes, 'bias');
  sameBytes(bytesOfValues(await readTensor(found.get('norm'), null, reading)), tensors[0].bytes, 'norm, behind the pieces');
  sameBytes(bytesOfValues(await wholeOf(found.get('next'), reading)), tensors[4].bytes, 'next');
  // mid and bias from the pieces read ahead, norm on its own: one read more than those ahead
  assert.equal(file.slices.filter(([a]) => a === found.get('norm').dataStart).length, 1, 'norm read on its own');
  assert.ok(file.slices.length - before <= 2, `${file.slices.length - before} reads after pad's`);
  await reading.settled();
  assert.ok(reading.buffers().length <= 3, 'the pool: the piece in use and two ahead, no buffer for the join');
});
