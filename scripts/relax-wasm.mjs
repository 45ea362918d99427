#!/usr/bin/env node
// Rewrites a linked relaxed build (CMakeLists.txt's `relaxed` variant) in place: clang 14 emits the
// relaxed-SIMD proposal's prototype fused multiply-add, "f32x4.fma" (0xfd 0xaf), which no engine
// accepts any more; the standard instruction is f32x4.relaxed_madd (0xfd 0x105, LEB128 85 02, the
// same two bytes as af 01). core/src/kernels/madd_f32x4.hpp gives the builtin its operands in
// relaxed_madd's order (a · b + c), so the opcode is all that changes.
//
// Not a byte search: the module's sections are read, and every function body of the code section
// is walked instruction by instruction (each opcode's immediates skipped by its encoding), so an
// 0xfd 0xaf inside a constant, an offset or a shuffle mask is never touched. Any other prototype
// relaxed opcode, or an opcode this walk does not know, stops the build. The result must then
// validate in V8 with relaxed SIMD on, and hold as many relaxed_madd as there were prototypes.
//   node --experimental-wasm-relaxed-simd scripts/relax-wasm.mjs build/wasm/attention-relaxed.wasm …
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

const PROTO_FMA = 0xaf;
const RELAXED_MADD = 0x105;
// opcodes that the standard SIMD leaves unassigned, where clang 14 put the prototype's relaxed
// instructions (swizzle, truncations, fma/fms, laneselect, min/max): none but f32x4.fma (0xaf) may
// appear, since only it is rewritten (0x100-0x113 are the standard relaxed instructions)
const UNASSIGNED_SIMD = new Set([0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0,
  0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

class Reader {
  constructor(bytes, at = 0) { this.bytes = bytes; this.at = at; }
  byte() {
    if (this.at >= this.bytes.length) throw new Error(`relax-wasm: read past the end at ${this.at}`);
    return this.bytes[this.at++];
  }
  // an unsigned or signed LEB128 of at most maxBytes bytes; the unsigned value (signed ones are skipped)
  leb(maxBytes = 5) {
    let value = 0, shift = 0;
    for (let i = 0; i < maxBytes; i++) {
      const b = this.byte();
      if (shift < 32) value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return value;
    }
    throw new Error(`relax-wasm: LEB128 longer than ${maxBytes} bytes at ${this.at}`);
  }
  skip(n) { this.at += n; }
  memarg() { this.leb(); this.leb(); }
}

// block, loop, if: 0x40 (empty), a value type (one byte, 0x6f-0x7f), or a type index (s33)
function blockType(r) {
  const b = r.bytes[r.at];
  if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) r.skip(1);
  else r.leb(5);
}

// the immediates of one 0xfd (SIMD) instruction whose opcode is `op`
function simdImmediates(r, op) {
  if (op <= 0x0b || op === 0x5c || op === 0x5d) r.memarg();                 // loads, stores, load_zero
  else if (op === 0x0c || op === 0x0d) r.skip(16);                           // v128.const, i8x16.shuffle
  else if (op >= 0x15 && op <= 0x22) r.skip(1);                              // extract/replace_lane
  else if (op >= 0x54 && op <= 0x5b) { r.memarg(); r.skip(1); }              // load/store_lane
  else if (op > 0x113) throw new Error(`relax-wasm: unknown SIMD opcode 0x${op.toString(16)}`);
}

// the immediates of one 0xfc instruction (saturating truncations, bulk memory, tables)
function miscImmediates(r, op) {
  if (op <= 7) return;
  if (op === 8) { r.leb(); r.skip(1); } else if (op === 9 || op === 13 || (op >= 15 && op <= 17)) r.leb();
  else if (op === 10) r.skip(2);
  else if (op === 11) r.skip(1);
  else if (op === 12 || op === 14) { r.leb(); r.leb(); } else throw new Error(`relax-wasm: unknown 0xfc opcode ${op}`);
}

// Each non-SIMD opcode's immediates, by opcode (an opcode not here stops the walk).
const range = (first, last) => Array.from({ length: last - first + 1 }, (_, i) => first + i);
const IMMEDIATES = new Map([
  [[0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1, ...range(0x45, 0xc4)], () => {}],  // none; numeric operators
  [[0x02, 0x03, 0x04], blockType],                                                       // block, loop, if
  [[0x0c, 0x0d, 0x10, ...range(0x20, 0x26), 0xd2], (r) => r.leb()],                      // br, call, locals, globals, tables
  [[0x0e], (r) => { const n = r.leb(); for (let i = 0; i <= n; i++) r.leb(); }],        // br_table
  [[0x11], (r) => { r.leb(); r.leb(); }],                                                // call_indirect
  [[0x1c], (r) => r.skip(r.leb())],                                                      // select with types
  [range(0x28, 0x3e), (r) => r.memarg()],                                                // loads and stores
  [[0x3f, 0x40, 0xd0], (r) => r.skip(1)],                                                // memory.size/grow, ref.null
  [[0x41], (r) => r.leb(5)],
  [[0x42], (r) => r.leb(10)],
  [[0x43], (r) => r.skip(4)],
  [[0x44], (r) => r.skip(8)],
  [[0xfc], (r) => miscImmediates(r, r.leb())],
].flatMap(([ops, read]) => ops.map((op) => [op, read])));

// Walks one function body's instructions from r.at to `end`; calls onSimd(op, opStart, opEnd) per 0xfd.
function walkBody(r, end, onSimd) {
  const localGroups = r.leb();
  for (let i = 0; i < localGroups; i++) { r.leb(); r.skip(1); }
  while (r.at < end) {
    const op = r.byte();
    if (op === 0xfd) {
      const start = r.at;
      const simd = r.leb();
      onSimd(simd, start, r.at);
      simdImmediates(r, simd);
      continue;
    }
    const read = IMMEDIATES.get(op);
    if (!read) throw new Error(`relax-wasm: unknown opcode 0x${op.toString(16)} at byte ${r.at - 1}`);
    read(r);
  }
  if (r.at !== end) throw new Error(`relax-wasm: a function body overran its size (${r.at} > ${end})`);
}

/** The module's bytes with every prototype f32x4.fma rewritten to f32x4.relaxed_madd: { bytes, count }. */
export function relax(input) {
  const bytes = Uint8Array.from(input);
  const r = new Reader(bytes, 8);
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error('relax-wasm: not a WebAssembly module');
  let count = 0, codeSections = 0;
  while (r.at < bytes.length) {
    const id = r.byte();
    const size = r.leb();
    const end = r.at + size;
    if (id === 10) {
      codeSections++;
      const functions = r.leb();
      for (let f = 0; f < functions; f++) {
        const bodySize = r.leb();
        walkBody(r, r.at + bodySize, (op, start, after) => {
          if (op === PROTO_FMA) {
            if (after - start !== 2) throw new Error(`relax-wasm: f32x4.fma encoded in ${after - start} bytes at ${start}`);
            bytes[start] = (RELAXED_MADD & 0x7f) | 0x80;
            bytes[start + 1] = RELAXED_MADD >> 7;
            count++;
          } else if (UNASSIGNED_SIMD.has(op)) {
            throw new Error(`relax-wasm: prototype relaxed opcode 0x${op.toString(16)} in function ${f}: only f32x4.fma is rewritten`);
          }
        });
      }
    }
    r.at = end;
  }
  if (codeSections !== 1) throw new Error(`relax-wasm: ${codeSections} code sections`);
  return { bytes, count };
}

// relaxed_madd instructions in a module (the same walk, counting)
export function countMadd(bytes) {
  let count = 0;
  const r = new Reader(bytes, 8);
  while (r.at < bytes.length) {
    const id = r.byte();
    const end = r.leb() + r.at;
    if (id === 10) {
      const functions = r.leb();
      for (let f = 0; f < functions; f++) {
        const bodySize = r.leb();
        walkBody(r, r.at + bodySize, (op) => { if (op === RELAXED_MADD) count++; });
      }
    }
    r.at = end;
  }
  return count;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  setFlagsFromString('--experimental-wasm-relaxed-simd');
  for (const file of process.argv.slice(2)) {
    const { bytes, count } = relax(readFileSync(file));
    if (count === 0 && countMadd(bytes) > 0) {
      console.log(`relax-wasm: ${file}: already rewritten (${countMadd(bytes)} f32x4.relaxed_madd)`);
      continue;
    }
    if (count === 0) throw new Error(`relax-wasm: no f32x4.fma in ${file} (built without ATTN_RELAXED_SIMD?)`);
    if (countMadd(bytes) !== count) throw new Error(`relax-wasm: ${file}: ${countMadd(bytes)} relaxed_madd after rewriting ${count}`);
    if (!WebAssembly.validate(bytes)) throw new Error(`relax-wasm: ${file} does not validate after the rewrite`);
    writeFileSync(file, bytes);
    console.log(`relax-wasm: ${file}: ${count} f32x4.fma → f32x4.relaxed_madd, validated`);
  }
}
