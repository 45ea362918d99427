// One GPT-2-small-sized pre-LN block, forward only, as each contender would run it. The problem's
// layout is bench/block-graphs.mjs's. Every run() returns the block's output, n × d, Float32Array.
import { sideBySide } from './onnx-model.mjs';
import { plainBlockModel, contribBlockModel, causalMask } from './block-graphs.mjs';

/**
 * This engine's transformer stack with one block. The request has no x: the block's input goes in as a
 * token table of n rows with ids 0 … n − 1 and positions 'none', so the stream into the block is x itself
 * (a copy of n × d values); no final norm, no unembedding, heads' traces off (`heads: false`).
 */
export function engineBlock(engine) {
  return {
    name: 'engine SIMD transformer()',
    prepare: (p) => ({
      ids: Array.from({ length: p.n }, (_, i) => i), vocab: p.n, dModel: p.d, tokens: p.x, positions: 'none', heads: false,
      layers: [{
        arrangement: 'pre',
        attention: { heads: p.h, mask: 'causal', wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo, bq: p.bq, bk: p.bk, bv: p.bv, bo: p.bo },
        norm1: { kind: 'layernorm', weight: p.ln1g, bias: p.ln1b, eps: 1e-5 },
        norm2: { kind: 'layernorm', weight: p.ln2g, bias: p.ln2b, eps: 1e-5 },
        mlp: { kind: 'plain', activation: 'gelu-tanh', hidden: p.f, w1: p.w1, b1: p.b1, w2: p.w2, b2: p.b2 },
      }],
      unembedding: 'none',
    }),
    run: (request) => engine.transformer(request).output,
  };
}

/**
 * The same block prepared once (engine.prepareTransformer): weights checked and packed into WebAssembly
 * memory at prepare, then each run copies in x (the stream into the block: `x` in place of token rows)
 * and copies out the output, no trace, no logits.
 */
export function enginePreparedBlock(engine) {
  const request = engineBlock(engine).prepare;
  return {
    name: 'engine SIMD prepared stack',
    prepare: (p) => {
      const { ids, heads, tokens, vocab, ...weights } = request(p);
      return { x: p.x, prepared: engine.prepareTransformer({ ...weights, vocab: 1, tokens: new Float32Array(p.d) }) };
    },
    run: ({ x, prepared }) => prepared.run({ x, logits: false }).output,
    release: ({ prepared }) => prepared.dispose(),
  };
}

/** ONNX Runtime Web (wasm EP, one thread, graph optimisation 'all') on the plain and the contrib graph. */
export function ortBlocks(ort) {
  const graphs = [{ name: 'ORT-web plain ops', build: plainBlockModel, batch: false },
    { name: 'ORT-web contrib ops', build: contribBlockModel, batch: true }];
  return graphs.map((graph) => ({
    name: graph.name,
    async: true,
    prepare: async (p) => ({
      session: await ort.InferenceSession.create(graph.build(p), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' }),
      feeds: { x: new ort.Tensor('float32', p.x, graph.batch ? [1, p.n, p.d] : [p.n, p.d]) },
    }),
    run: async ({ session, feeds }) => (await session.run(feeds)).output.data,
    release: ({ session }) => session.release(),
  }));
}

/** TensorFlow.js on the wasm backend (XNNPACK matMuls), all heads batched with 3-D matMuls. */
export function tfBlock(tf) {
  const layerNorm = (x, g, b) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
  };
  const gelu = (u) => tf.mul(tf.mul(u, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(u, tf.mul(tf.pow(u, 3), 0.044715)), Math.sqrt(2 / Math.PI)))));
  return {
    name: 'TF.js wasm',
    prepare: (p) => {
      const t = (values, shape) => tf.tensor(values, shape);
      const hd = p.h * p.dK;
      return { p, x: t(p.x, [p.n, p.d]), mask: t(causalMask(p.n), [p.n, p.n]),
        wq: t(sideBySide(p, p.wq), [p.d, hd]), wk: t(sideBySide(p, p.wk), [p.d, hd]), wv: t(sideBySide(p, p.wv), [p.d, hd]),
        bq: t(p.bq, [hd]), bk: t(p.bk, [hd]), bv: t(p.bv, [hd]), wo: t(p.wo, [hd, p.d]), bo: t(p.bo, [p.d]),
        ln1g: t(p.ln1g, [p.d]), ln1b: t(p.ln1b, [p.d]), ln2g: t(p.ln2g, [p.d]), ln2b: t(p.ln2b, [p.d]),
        w1: t(p.w1, [p.d, p.f]), b1: t(p.b1, [p.f]), w2: t(p.w2, [p.f, p.d]), b2: t(p.b2, [p.d]) };
    },
    run: (m) => tf.tidy(() => {
      const { p } = m;
      const a = layerNorm(m.x, m.ln1g, m.ln1b);
      const split = (w, b, perm) => tf.transpose(tf.reshape(tf.add(tf.matMul(a, w), b), [p.n, p.h, p.dK]), perm);
      const scores = tf.mul(tf.matMul(split(m.wq, m.bq, [1, 0, 2]), split(m.wk, m.bk, [1, 2, 0])), 1 / Math.sqrt(p.dK));
      const weights = tf.softmax(tf.add(scores, m.mask));
      const z = tf.reshape(tf.transpose(tf.matMul(weights, split(m.wv, m.bv, [1, 0, 2])), [1, 0, 2]), [p.n, p.h * p.dK]);
      const y = tf.add(m.x, tf.add(tf.matMul(z, m.wo), m.bo));
      const u = tf.add(tf.matMul(layerNorm(y, m.ln2g, m.ln2b), m.w1), m.b1);
      return tf.add(y, tf.add(tf.matMul(gelu(u), m.w2), m.b2)).dataSync();
    }),
    release: (m) => Object.values(m).forEach((v) => v && typeof v.dispose === 'function' && v.dispose()),
  };
}
