// The training-step benchmark's contenders and its interleaved timing, shared by Node
// (bench/training.mjs) and headless Chromium (bench/training-browser-entry.mjs): one Adam step
// (forward, backward, update) of one attention layer on a batch of 32 sentences × 12 tokens, for the
// engine's trainer (both builds), TensorFlow.js (tf.variableGrads + tf.train.adam, the same model over
// the whole batch) and plain JavaScript. Nothing here touches Node or the DOM.
//   model: q, k, v = x·W (per head), softmax(q·kᵀ/√dK)·v, concat·wo; loss: mean (output − target)²
import { mulberry32 } from '../web/src/shared/stats.mjs';
import { sideBySide } from './onnx-model.mjs';

export const BATCH = 32, TOKENS = 12;
export const SIZES = [[16, 2], [16, 4], [64, 2], [64, 4]];
export const ADAM = { learningRate: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-7 };

/** One TF.js step: the loss's gradients by tf.variableGrads, applied by `optimizer`; the loss's value. */
export function adamStep(tf, loss, optimizer) {
  const { value, grads } = tf.variableGrads(loss);
  optimizer.applyGradients(grads);
  const lossValue = value.dataSync()[0];
  value.dispose();
  Object.values(grads).forEach((g) => g.dispose());
  return lossValue;
}

// Seeded sentences and targets, the same for every contender.
export function makeData(d) {
  const draw = mulberry32(d);
  const next = () => (draw() / 4294967296) * 2 - 1;
  return Array.from({ length: BATCH }, () => ({
    x: Float32Array.from({ length: TOKENS * d }, next),
    target: Float32Array.from({ length: TOKENS * d }, () => next() * 0.5),
  }));
}

// ---- the engine's trainer

function engineContender(name, engine, d, h, data, initial) {
  const trainer = engine.createTrainer({ model: { dModel: d, heads: h }, loss: { kind: 'regress' },
    optimizer: { kind: 'adam', ...ADAM }, seed: 1, weights: initial });
  trainer.setData(data);
  return { name, step: () => trainer.step(1).losses[0], dispose: () => trainer.dispose() };
}

// ---- TensorFlow.js: the same model over the whole batch at once, the weights as variables

function tfContender(tf, d, h, data, initial) {
  const dK = d / h;
  const x = tf.tensor3d(Float32Array.from(data.flatMap((e) => Array.from(e.x))), [BATCH, TOKENS, d]);
  const target = tf.tensor3d(Float32Array.from(data.flatMap((e) => Array.from(e.target))), [BATCH, TOKENS, d]);
  const wq = tf.variable(tf.tensor2d(sideBySide({ d, h, dK }, initial.wq), [d, h * dK]));
  const wk = tf.variable(tf.tensor2d(sideBySide({ d, h, dK }, initial.wk), [d, h * dK]));
  const wv = tf.variable(tf.tensor2d(sideBySide({ d, h, dK }, initial.wv), [d, h * dK]));
  const wo = tf.variable(tf.tensor2d(initial.wo, [h * dK, d]));
  const optimizer = tf.train.adam(ADAM.learningRate, ADAM.beta1, ADAM.beta2, ADAM.epsilon);
  const flat = tf.reshape(x, [BATCH * TOKENS, d]);
  const loss = () => {
    const split = (w) => tf.transpose(tf.reshape(tf.matMul(flat, w), [BATCH, TOKENS, h, dK]), [0, 2, 1, 3]);  // (B, h, n, dK)
    const weights = tf.softmax(tf.mul(tf.matMul(split(wq), split(wk), false, true), 1 / Math.sqrt(dK)));
    const z = tf.reshape(tf.transpose(tf.matMul(weights, split(wv)), [0, 2, 1, 3]), [BATCH * TOKENS, h * dK]);
    const output = tf.reshape(tf.matMul(z, wo), [BATCH, TOKENS, d]);
    return tf.mean(tf.square(tf.sub(output, target)));
  };
  const step = () => adamStep(tf, loss, optimizer);
  return { name: 'TF.js wasm', step, dispose: () => [x, target, flat, wq, wk, wv, wo].forEach((t) => t.dispose()) || optimizer.dispose() };
}

// ---- plain JavaScript: loops over each sentence, forward then backward, then Adam

function plainContender(d, h, data, initial) {
  const dK = d / h;
  const dims = { d, h, dK, n: TOKENS, width: h * dK };
  const params = ['wq', 'wk', 'wv', 'wo'].map((name) => ({ value: Float32Array.from(initial[name]),
    grad: new Float32Array(initial[name].length), m: new Float32Array(initial[name].length), v: new Float32Array(initial[name].length) }));
  const [wq, wk, wv, wo] = params;
  let t = 0;
  const step = () => {
    for (const p of params) p.grad.fill(0);
    const loss = { total: 0 };
    for (const { x, target } of data) {
      const { concat, heads } = plainForwardHeads(dims, x, wq, wk, wv);
      const dOut = plainOutputGradient(dims, concat, wo, target, loss);
      plainBackward(dims, x, { concat, heads, dOut }, { wq, wk, wv, wo });
    }
    t += 1;
    plainAdam(params, t);
    return loss.total / (dims.n * d * BATCH);
  };
  return { name: 'plain JS', step, dispose: () => {} };
}

// (n, dK) = x (n, d) · w[head] (d, dK)
function plainProject({ d, dK, n }, x, w, head) {
  const y = new Float32Array(n * dK);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < dK; c++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += x[i * d + k] * w[head * d * dK + k * dK + c];
      y[i * dK + c] = s;
    }
  return y;
}

// Each head's q, k, v and weights a, and the heads' outputs side by side (concat, (n, width)).
function plainForwardHeads(dims, x, wq, wk, wv) {
  const { h, dK, n, width } = dims;
  const scale = 1 / Math.sqrt(dK);
  const concat = new Float32Array(n * width), heads = [];
  for (let head = 0; head < h; head++) {
    const q = plainProject(dims, x, wq.value, head), k = plainProject(dims, x, wk.value, head), v = plainProject(dims, x, wv.value, head);
    const a = new Float32Array(n * n);
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let c = 0; c < dK; c++) s += q[i * dK + c] * k[j * dK + c];
        a[i * n + j] = s * scale;
        max = Math.max(max, a[i * n + j]);
      }
      let sum = 0;
      for (let j = 0; j < n; j++) sum += a[i * n + j] = Math.exp(a[i * n + j] - max);
      for (let j = 0; j < n; j++) a[i * n + j] /= sum;
      for (let c = 0; c < dK; c++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += a[i * n + j] * v[j * dK + c];
        concat[i * width + head * dK + c] = s;
      }
    }
    heads.push({ q, k, v, a });
  }
  return { concat, heads };
}

// Output, loss (added to loss.total) and d_output = 2 (output − target) / (n·d) / batch.
function plainOutputGradient({ d, n, width }, concat, wo, target, loss) {
  const dOut = new Float32Array(n * d);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < d; c++) {
      let s = 0;
      for (let k = 0; k < width; k++) s += concat[i * width + k] * wo.value[k * d + c];
      const err = s - target[i * d + c];
      loss.total += err * err;
      dOut[i * d + c] = (2 * err) / (n * d * BATCH);
    }
  return dOut;
}

// Backward: wo, then per head z → a, v → scores → q, k → the projections (gradients added to .grad).
function plainBackward(dims, x, { concat, heads, dOut }, { wq, wk, wv, wo }) {
  const { d, h, n, width } = dims;
  const dConcat = new Float32Array(n * width);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < width; k++) {
      let s = 0;
      for (let c = 0; c < d; c++) {
        s += dOut[i * d + c] * wo.value[k * d + c];
        wo.grad[k * d + c] += concat[i * width + k] * dOut[i * d + c];
      }
      dConcat[i * width + k] = s;
    }
  for (let head = 0; head < h; head++) {
    const { dq, dk, dv } = plainHeadBackward(dims, heads[head], dConcat, head);
    for (const [w, dy] of [[wq, dq], [wk, dk], [wv, dv]]) plainProjectionBackward(dims, x, w, dy, head);
  }
}

// One head: from its slice of d_concat to dq, dk, dv.
function plainHeadBackward({ dK, n, width }, { q, k, v, a }, dConcat, head) {
  const scale = 1 / Math.sqrt(dK);
  const dq = new Float32Array(n * dK), dk = new Float32Array(n * dK), dv = new Float32Array(n * dK);
  for (let i = 0; i < n; i++) {
    const dA = new Float32Array(n);
    let dot = 0;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < dK; c++) {
        s += dConcat[i * width + head * dK + c] * v[j * dK + c];
        dv[j * dK + c] += a[i * n + j] * dConcat[i * width + head * dK + c];
      }
      dA[j] = s;
      dot += s * a[i * n + j];
    }
    for (let j = 0; j < n; j++) {
      const dS = a[i * n + j] * (dA[j] - dot) * scale;
      for (let c = 0; c < dK; c++) {
        dq[i * dK + c] += dS * k[j * dK + c];
        dk[j * dK + c] += dS * q[i * dK + c];
      }
    }
  }
  return { dq, dk, dv };
}

// w.grad[head] += xᵀ · dy
function plainProjectionBackward({ d, dK, n }, x, w, dy, head) {
  for (let r = 0; r < d; r++)
    for (let c = 0; c < dK; c++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += x[i * d + r] * dy[i * dK + c];
      w.grad[head * d * dK + r * dK + c] += s;
    }
}

function plainAdam(params, t) {
  const c1 = 1 - ADAM.beta1 ** t, c2 = 1 - ADAM.beta2 ** t;
  for (const p of params)
    for (let i = 0; i < p.value.length; i++) {
      const g = p.grad[i];
      p.m[i] = ADAM.beta1 * p.m[i] + (1 - ADAM.beta1) * g;
      p.v[i] = ADAM.beta2 * p.v[i] + (1 - ADAM.beta2) * g * g;
      p.value[i] -= (ADAM.learningRate * (p.m[i] / c1)) / (Math.sqrt(p.v[i] / c2) + ADAM.epsilon);
    }
}

// ---- the run

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * One size's contenders, checked and warmed up (timedSession below), for one attention layer.
 */
export function trainingSession({ simd, scalar, tf, d, h, minSampleMs = 0 }) {
  const data = makeData(d);
  const initial = simd.initWeights({ dModel: d, heads: h, seed: 1 });
  const make = () => [engineContender('engine SIMD', simd, d, h, data, initial), engineContender('engine scalar', scalar, d, h, data, initial),
    tfContender(tf, d, h, data, initial), plainContender(d, h, data, initial)];
  return timedSession({ make, label: `dModel ${d}, heads ${h}`, minSampleMs,
    describe: (medians) => ({ dModel: d, heads: h, batch: BATCH, tokens: TOKENS, speedupOverTfWasm: medians['TF.js wasm'] / medians['engine SIMD'],
      speedupOverPlainJs: medians['plain JS'] / medians['engine SIMD'] }) });
}

/**
 * Contenders (`make()`: a fresh list, the engine's SIMD build first), checked and warmed up: each
 * trains 10 steps from the same initial weights and its losses must equal the first's within 1e-4 (or
 * this throws); then 5 warm-up steps each. `steps`, the steps per sample: 1, or, with `minSampleMs` (a
 * browser's clock ticks in 0.1 ms), the most that took that long in three tries. `sample(i)` times one
 * sample of contender i (wall ms per step); `row(times, cpuTimes)` gives the medians, `describe(medians)`'s
 * fields and the agreement.
 */
export function timedSession({ make, label, minSampleMs = 0, describe }) {
  // Agreement: 10 steps from the same weights; every loss within 1e-4 of the engine's.
  const check = make();
  const losses = check.map((c) => Array.from({ length: 10 }, () => c.step()));
  check.forEach((c) => c.dispose());
  const reference = losses[0];
  const agreement = check.map((c, i) => ({ name: c.name, maxLossDifference: Math.max(...losses[i].map((l, s) => Math.abs(l - reference[s]))) }));
  for (const a of agreement) {
    if (!(a.maxLossDifference <= 1e-4)) throw new Error(`${label}: ${a.name}'s losses differ from the engine's by ${a.maxLossDifference}`);
  }

  const contenders = make();
  const steps = contenders.map((c) => {
    for (let i = 0; i < 5; i++) c.step();
    if (!(minSampleMs > 0)) return 1;
    // the most steps that fit in minSampleMs in three tries (a try slowed by other jobs counts fewer)
    let most = 1;
    for (let attempt = 0; attempt < 3; attempt++) {
      const start = performance.now();
      let count = 0;
      while (performance.now() - start < minSampleMs) {
        c.step();
        count++;
      }
      most = Math.max(most, count);
    }
    return most;
  });
  const names = contenders.map((c) => c.name);
  const medianOf = (perContender) => Object.fromEntries(names.map((name, i) => [name, median(perContender[i])]));
  return {
    names, steps,
    sample(i) {
      const start = performance.now();
      for (let s = 0; s < steps[i]; s++) contenders[i].step();
      return (performance.now() - start) / steps[i];
    },
    // times[i], cpuTimes[i] (or null): contender i's samples, ms per step
    row(times, cpuTimes = null) {
      contenders.forEach((c) => c.dispose());
      const medians = medianOf(times);
      const row = { ...describe(medians), medianMs: medians, stepsPerSample: Object.fromEntries(names.map((name, i) => [name, steps[i]])),
        lossesAfter10Steps: reference.at(-1), losses: reference, agreement };
      if (cpuTimes) {
        row.medianCpuMs = medianOf(cpuTimes);
        row.cpuSpeedupOverTfWasm = row.medianCpuMs['TF.js wasm'] / row.medianCpuMs['engine SIMD'];
      }
      return row;
    },
  };
}

export function describeRow(row) {
  const cpu = row.cpuSpeedupOverTfWasm ? ` (CPU time ×${row.cpuSpeedupOverTfWasm.toFixed(1)})` : '';
  const what = row.model ?? `dModel ${row.dModel}, ${row.heads} heads`;
  const plain = row.speedupOverPlainJs ? `, ×${row.speedupOverPlainJs.toFixed(1)} plain JS` : '';
  return `${what}: ${Object.entries(row.medianMs).map(([k, v]) => `${k} ${v.toFixed(3)} ms`).join(', ')}; ` +
    `×${row.speedupOverTfWasm.toFixed(1)} TF.js wasm${cpu}${plain}; ` +
    `losses agree to ${Math.max(...row.agreement.map((a) => a.maxLossDifference)).toExponential(1)}`;
}

/**
 * One session's `rounds` rounds of one sample per contender, interleaved (the order turns each round:
 * no contender always runs first). `cpuClock()` (Node: process.cpuUsage, in ms), when given, also
 * times each sample in this process's CPU time.
 */
export function timeSession(session, { rounds, cpuClock = null }) {
  const times = session.names.map(() => []);
  const cpuTimes = session.names.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < session.names.length; k++) {
      const i = (k + round) % session.names.length;
      const cpu = cpuClock?.();
      times[i].push(session.sample(i));
      if (cpuClock) cpuTimes[i].push((cpuClock() - cpu) / session.steps[i]);
    }
  }
  return session.row(times, cpuClock ? cpuTimes : null);
}

/** Every size in this process, each timeSession's rows. */
export function runTrainingSuite({ simd, scalar, tf, sizes = SIZES, rounds, minSampleMs = 0, cpuClock = null, log = () => {} }) {
  const rows = [];
  for (const [d, h] of sizes) {
    const row = timeSession(trainingSession({ simd, scalar, tf, d, h, minSampleMs }), { rounds, cpuClock });
    rows.push(row);
    log(describeRow(row));
  }
  return rows;
}
