// What a user could pick instead of this engine, written as each would be used. Every contender
// computes softmax(Q·Kᵀ / √d_k)·V per head, concatenates the heads and multiplies by W_O.
//   problem: { n, d, h, dK, x (n × d), wq, wk, wv (h × d × dK, head-major), wo (h·dK × d) }
import { ORT_MODELS, sideBySide } from './onnx-model.mjs';

/** This engine, one build; with and without the trace. */
export function engineContender(name, engine) {
  return {
    name,
    traces: [false, true],
    prepare: (p) => p,
    run: (p, trace) => engine.attention({ x: p.x, n: p.n, dModel: p.d, heads: p.h, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo, trace }).output,
  };
}

/**
 * This engine through engine.prepare(): weights resident in WebAssembly memory, only x per call. With
 * `reuseOutput`, run() writes into one output array kept across calls (its `output` option) instead
 * of returning a new one: ONNX Runtime Web's wasm backend has no working equivalent (a pre-allocated
 * CPU output tensor comes back unfilled in 1.30), so the targets are read from the plain run().
 */
export function preparedContender(name, engine, { reuseOutput = false } = {}) {
  return {
    name,
    traces: [false],
    skip: () => typeof engine.prepare !== 'function',
    prepare: (p) => {
      const model = engine.prepare({ dModel: p.d, heads: p.h, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo });
      return { model, x: p.x, n: p.n, output: reuseOutput ? new Float32Array(p.n * model.dOut) : undefined };
    },
    run: ({ model, x, n, output }) => (output ? model.run({ x, n, output }) : model.run({ x, n })).output,
    release: ({ model }) => model.dispose(),
  };
}

/** Plain JavaScript as a course demo would have it: Float32Array and triple loops. */
export const plainJsContender = {
  name: 'plain JS',
  traces: [false],
  slow: ([n]) => n >= 256,
  prepare: (p) => p,
  run({ n, d, h, dK, x, wq, wk, wv, wo }) {
    const matmul = (a, b, rows, inner, cols, bOffset = 0) => {
      const c = new Float32Array(rows * cols);
      for (let i = 0; i < rows; i++) {
        for (let j = 0; j < cols; j++) {
          let sum = 0;
          for (let k = 0; k < inner; k++) sum += a[i * inner + k] * b[bOffset + k * cols + j];
          c[i * cols + j] = sum;
        }
      }
      return c;
    };
    const concat = new Float32Array(n * h * dK);
    for (let head = 0; head < h; head++) {
      const q = matmul(x, wq, n, d, dK, head * d * dK);
      const k = matmul(x, wk, n, d, dK, head * d * dK);
      const v = matmul(x, wv, n, d, dK, head * d * dK);
      for (let i = 0; i < n; i++) {
        const weights = new Float32Array(n);
        let max = -Infinity;
        for (let j = 0; j < n; j++) {
          let dot = 0;
          for (let t = 0; t < dK; t++) dot += q[i * dK + t] * k[j * dK + t];
          weights[j] = dot / Math.sqrt(dK);
          max = Math.max(max, weights[j]);
        }
        let total = 0;
        for (let j = 0; j < n; j++) total += weights[j] = Math.exp(weights[j] - max);
        for (let t = 0; t < dK; t++) {
          let sum = 0;
          for (let j = 0; j < n; j++) sum += (weights[j] / total) * v[j * dK + t];
          concat[i * h * dK + head * dK + t] = sum;
        }
      }
    }
    return matmul(concat, wo, n, h * dK, d);
  },
};

/**
 * TensorFlow.js on a backend, two ways: "batched" (one projection per W for all heads, 3-D matMuls
 * for scores and values) and "per head" (only 2-D, untransposed matMuls, which tfjs-backend-wasm
 * sends to XNNPACK; Kᵀ is materialised with transpose first).
 */
export function tfContenders(tf, backend) {
  const batched = {
    name: `TF.js ${backend} batched`,
    traces: [false],
    slow: ([n]) => backend === 'cpu' && n >= 1024,
    prepare: (p) => ({
      p,
      x: tf.tensor2d(p.x, [p.n, p.d]),
      wq: tf.tensor2d(sideBySide(p, p.wq), [p.d, p.h * p.dK]),
      wk: tf.tensor2d(sideBySide(p, p.wk), [p.d, p.h * p.dK]),
      wv: tf.tensor2d(sideBySide(p, p.wv), [p.d, p.h * p.dK]),
      wo: tf.tensor2d(p.wo, [p.h * p.dK, p.d]),
    }),
    run: ({ p, x, wq, wk, wv, wo }) => tf.tidy(() => {
      const split = (w, perm) => tf.transpose(tf.reshape(tf.matMul(x, w), [p.n, p.h, p.dK]), perm);
      const q = split(wq, [1, 0, 2]);              // (h, n, dK)
      const k = split(wk, [1, 2, 0]);              // (h, dK, n)
      const v = split(wv, [1, 0, 2]);              // (h, n, dK)
      const weights = tf.softmax(tf.mul(tf.matMul(q, k), 1 / Math.sqrt(p.dK)));
      const z = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [p.n, p.h * p.dK]);
      return tf.matMul(z, wo).dataSync();
    }),
    release: (t) => [t.x, t.wq, t.wk, t.wv, t.wo].forEach((tensor) => tensor.dispose()),
  };
  const perHead = {
    name: `TF.js ${backend} per head`,
    traces: [false],
    slow: ([n]) => backend === 'cpu' && n >= 1024,
    prepare: (p) => {
      const block = (w, head) => tf.tensor2d(w.subarray(head * p.d * p.dK, (head + 1) * p.d * p.dK), [p.d, p.dK]);
      const heads = Array.from({ length: p.h }, (_, head) => ({ wq: block(p.wq, head), wk: block(p.wk, head), wv: block(p.wv, head) }));
      return { p, heads, x: tf.tensor2d(p.x, [p.n, p.d]), wo: tf.tensor2d(p.wo, [p.h * p.dK, p.d]) };
    },
    run: ({ p, heads, x, wo }) => tf.tidy(() => {
      const z = heads.map(({ wq, wk, wv }) => {
        const q = tf.matMul(x, wq);
        const kT = tf.transpose(tf.matMul(x, wk));  // materialised: XNNPACK only takes untransposed operands
        const weights = tf.softmax(tf.mul(tf.matMul(q, kT), 1 / Math.sqrt(p.dK)));
        return tf.matMul(weights, tf.matMul(x, wv));
      });
      return tf.matMul(tf.concat(z, 1), wo).dataSync();
    }),
    release: (t) => [t.x, t.wo, ...t.heads.flatMap((hd) => [hd.wq, hd.wk, hd.wv])].forEach((tensor) => tensor.dispose()),
  };
  return [batched, perHead];
}

/**
 * ONNX Runtime Web (wasm execution provider, SIMD, one thread: ort.env.wasm.numThreads = 1 is set
 * by the caller) on each graph of bench/onnx-model.mjs: plain ops batched and per head, and the
 * com.microsoft MultiHeadAttention and Attention contrib ops. Graph optimisation on ('all').
 */
export function ortContenders(ort) {
  return ORT_MODELS.map((graph) => ({
    name: graph.name,
    traces: [false],
    async: true,
    prepare: async (p) => ({
      session: await ort.InferenceSession.create(graph.build(p), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' }),
      feeds: { x: new ort.Tensor('float32', p.x, graph.batch ? [1, p.n, p.d] : [p.n, p.d]) },
    }),
    run: async ({ session, feeds }) => (await session.run(feeds)).output.data,
    release: ({ session }) => session.release(),
  }));
}

/** Everything timed while TensorFlow.js is on `backend`: on 'wasm' also the engine, plain JS and ONNX Runtime Web. */
export function contendersFor(backend, { simd, scalar, relaxed = null, tf, ort }) {
  if (backend === 'cpu') return tfContenders(tf, 'cpu');
  // relaxed: the relaxed-SIMD build (fused multiply-adds), where the runtime has relaxed SIMD
  const fused = relaxed ? [engineContender('engine relaxed', relaxed), preparedContender('engine relaxed prepared', relaxed),
    preparedContender('engine relaxed prepared, output given', relaxed, { reuseOutput: true })] : [];
  return [engineContender('engine SIMD', simd), preparedContender('engine SIMD prepared', simd), ...fused,
    preparedContender('engine SIMD prepared, output given', simd, { reuseOutput: true }), engineContender('engine scalar', scalar),
    plainJsContender, ...tfContenders(tf, 'wasm'), ...(ort ? ortContenders(ort) : [])];
}
