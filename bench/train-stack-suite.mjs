// The stack training-step benchmark's contenders (issue 22): one Adam step of the two-layer
// attention-only induction model, batch 32, sequence 24, dModel 32, 4 heads, rotary positions (every
// dimension of each head, theta 10000, rotate-half), the causal mask, its own unembedding, next-token
// cross-entropy on the repeated half; the engine's stack trainer (both builds) against TensorFlow.js
// (tf.variableGrads + tf.train.adam, the same model over the whole batch at once), from the same
// weights (the engine's, exported by weights() and loaded into TF.js variables). Shared by Node
// (bench/training.mjs) and headless Chromium (bench/training-browser-entry.mjs); nothing here touches
// Node or the DOM.
//   model: x = tokens[ids]; per layer x += concat_h(softmax(rope(x·Wq_h)·rope(x·Wk_h)ᵀ/√dK + causal)·(x·Wv_h))·Wo;
//   logits = x·U; loss: the mean over examples and positions 12 … 22 of −log softmax(logits[i])[ids[i+1]]
import { mulberry32 } from '../web/src/shared/stats.mjs';
import { sideBySide } from './onnx-model.mjs';
import { ADAM, adamStep, timedSession } from './training-suite.mjs';

export const STACK = { batch: 32, tokens: 24, vocab: 16, dModel: 32, heads: 4, layers: 2, seed: 3 };
const HALF = STACK.tokens / 2;  // the first half: 12 distinct random tokens; the second repeats it

/** Seeded sequences: 12 distinct tokens of the 16, then the same 12 again; scored from position 12. */
export function stackData() {
  const draw = mulberry32(22);
  return Array.from({ length: STACK.batch }, () => {
    const pool = Array.from({ length: STACK.vocab }, (_, i) => i);
    for (let i = 0; i < HALF; i++) {
      const j = i + (draw() % (STACK.vocab - i));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    const half = pool.slice(0, HALF);
    return { ids: [...half, ...half], first: HALF };
  });
}

const MODEL = { vocab: STACK.vocab, dModel: STACK.dModel, layers: STACK.layers, heads: STACK.heads, positions: 'rotary' };

function engineContender(name, engine, data, initial) {
  const trainer = engine.createStackTrainer({ model: MODEL, loss: { kind: 'next-token' },
    optimizer: { kind: 'adam', ...ADAM, batchSize: STACK.batch }, seed: STACK.seed, weights: initial });
  trainer.setData(data);
  return { name, step: () => trainer.step(1).losses[0], dispose: () => trainer.dispose() };
}

// cos and sin of position r times theta^(−2c/dK), (n, dK/2), as the core's rotary tables (float64, then float32)
function rotaryTables(tf, n, dK) {
  const half = dK / 2;
  const cos = new Float32Array(n * half), sin = new Float32Array(n * half);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < half; c++) {
      const angle = r * Math.exp((-2 * c / dK) * Math.log(10000));
      cos[r * half + c] = Math.cos(angle);
      sin[r * half + c] = Math.sin(angle);
    }
  }
  return { cos: tf.tensor2d(cos, [n, half]), sin: tf.tensor2d(sin, [n, half]) };
}

function tfContender(tf, data, initial) {
  const { batch: B, tokens: n, vocab: V, dModel: d, heads: h, layers: L } = STACK;
  const dK = d / h, half = dK / 2;
  const ids = data.flatMap((e) => e.ids);
  const oneHot = tf.cast(tf.oneHot(tf.tensor1d(ids, 'int32'), V), 'float32');  // (B·n, V): x = oneHot · tokens
  // the targets of positions 12 … 22: ids 13 … 23, one-hot (B, 11, V)
  const targets = tf.cast(tf.oneHot(tf.tensor2d(data.map((e) => e.ids.slice(HALF + 1)), [B, n - HALF - 1], 'int32'), V), 'float32');
  const { cos, sin } = rotaryTables(tf, n, dK);
  const causal = tf.tensor2d(Float32Array.from({ length: n * n }, (_, k) => (k % n > Math.floor(k / n) ? -1e9 : 0)), [n, n]);
  const v = (name, shape, values) => tf.variable(tf.tensor(values, shape), true, name);
  const tokens = v('tokens', [V, d], initial.tokens);
  const layers = Array.from({ length: L }, (_, l) => Object.fromEntries(['wq', 'wk', 'wv'].map((w) =>
    [w, v(`${l}.${w}`, [d, h * dK], sideBySide({ d, h, dK }, initial[`layers.${l}.${w}`]))]).concat([['wo', v(`${l}.wo`, [h * dK, d], initial[`layers.${l}.wo`])]])));
  const unembedding = v('unembedding', [d, V], initial.unembedding);
  const optimizer = tf.train.adam(ADAM.learningRate, ADAM.beta1, ADAM.beta2, ADAM.epsilon);
  const split = (flat, w) => tf.transpose(tf.reshape(tf.matMul(flat, w), [B, n, h, dK]), [0, 2, 1, 3]);  // (B, h, n, dK)
  const rope = (y) => {
    const [a, b] = tf.split(y, [half, half], 3);
    return tf.concat([tf.sub(tf.mul(a, cos), tf.mul(b, sin)), tf.add(tf.mul(b, cos), tf.mul(a, sin))], 3);
  };
  const loss = () => {
    let x = tf.matMul(oneHot, tokens);  // (B·n, d)
    for (const { wq, wk, wv, wo } of layers) {
      const scores = tf.add(tf.mul(tf.matMul(rope(split(x, wq)), rope(split(x, wk)), false, true), 1 / Math.sqrt(dK)), causal);
      const z = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), split(x, wv)), [0, 2, 1, 3]), [B * n, h * dK]);
      x = tf.add(x, tf.matMul(z, wo));
    }
    const logits = tf.slice(tf.reshape(tf.matMul(x, unembedding), [B, n, V]), [0, HALF, 0], [B, n - HALF - 1, V]);
    return tf.neg(tf.mean(tf.sum(tf.mul(targets, tf.logSoftmax(logits)), 2)));
  };
  const step = () => adamStep(tf, loss, optimizer);
  const owned = [oneHot, targets, cos, sin, causal, tokens, unembedding, ...layers.flatMap((w) => Object.values(w))];
  return { name: 'TF.js wasm', step, dispose: () => owned.forEach((t) => t.dispose()) || optimizer.dispose() };
}

/**
 * The stack's session (training-suite.mjs's timedSession: 10 steps from the same weights, losses equal
 * to the engine's within 1e-4 or it throws; warm-up; sample(i); row(times, cpuTimes)).
 */
export function stackTrainingSession({ simd, scalar, tf, minSampleMs = 0 }) {
  const data = stackData();
  const fresh = simd.createStackTrainer({ model: MODEL, seed: STACK.seed });
  const initial = fresh.weights();
  fresh.dispose();
  const make = () => [engineContender('engine SIMD', simd, data, initial), engineContender('engine scalar', scalar, data, initial),
    tfContender(tf, data, initial)];
  const label = `the induction stack (batch ${STACK.batch}, n ${STACK.tokens}, dModel ${STACK.dModel}, ${STACK.heads} heads, ${STACK.layers} layers)`;
  return timedSession({ make, label, minSampleMs,
    describe: (medians) => ({ model: 'induction stack', ...STACK, speedupOverTfWasm: medians['TF.js wasm'] / medians['engine SIMD'] }) });
}
