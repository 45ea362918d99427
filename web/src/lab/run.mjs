// Asks the engine for each new state and turns its answer into the view the features draw. Every
// request gets a number, so no answer to an older one lands on top of a newer; a state that cannot
// be computed is explained while the last good tables stay on screen.
import { columnsOf } from '../state/index.mjs';
import { engineMessage } from './engine-messages.mjs';

// The engine names its arguments; the page's controls that set them.
const CONTROL_OF_ENGINE_FIELD = new Map([['wq', 'weightsMode'], ['wk', 'weightsMode'], ['wv', 'weightsMode'], ['wo', 'weightsMode'], ['dModel', 'dModel'], ['heads', 'heads'], ['dK', 'dK'], ['dV', 'dV'], ['n', 'sentence'], ['m', 'contextSentence'],
  ['kvHeads', 'kvHeads'], ['rotary', 'rotary'], ['rotary.dims', 'rotaryDims'], ['rotary.theta', 'rotaryTheta'], ['window', 'window']]);

// The engine's problem, marked on the control that sets its field, in the lab's language where the
// lab knows its template (engine-messages.mjs); any other stays English, inside a sentence of the
// lab's language ('engine.problem').
// The engine line's name of the build: a shipped result (first-result.mjs) was computed at build time
// by Node's SIMD build, whichever build the page has since loaded.
function engineName(info, shipped) {
  if (!info.simd) return 'scalar';
  return info.build === 'relaxed' && !shipped ? 'SIMD + FMA' : 'SIMD';
}

function pageProblem({ field, message: text }, asked) {
  const control = field === 'scale' ? (asked.scaleMode === 'custom' ? 'scaleDivisor' : 'scaleMode') : CONTROL_OF_ENGINE_FIELD.get(field) ?? field;
  return { field: control, ...engineMessage(text), message: text };
}

// A stack's reply as one layer's: the chosen layer's heads, concatenation and attention output in
// the places every table reads (result.heads …), its attention's input as X, its weights; every
// layer's trace stays in result.layers.
function chosenLayer(asked, built, reply) {
  const { layers } = reply.result;
  const l = Math.min(asked.selectedLayer, layers.length - 1);
  const layer = layers[l];
  const result = { ...reply.result, layer: l, heads: layer.heads, concat: layer.concat, output: layer.attention };
  // the attention reads the stream (attention only, post-LN) or its norm (pre-LN)
  const x = asked.block === 'full' && asked.norm === 'pre' ? layer.norm1 : layer.input;
  // X is typed in only where it is the sentence's vectors themselves
  const typed = l === 0 && x === layer.input && !built.request.positions;
  return { result, x, weights: reply.layerWeights[l], layerWeights: reply.layerWeights, layer: l, typedX: typed, readsNorm: x !== layer.input };
}

function viewOf(asked, built, reply) {
  const { tokens, keyTokens } = built;
  const stack = built.request.stack ? chosenLayer(asked, built, reply) : null;
  return {
    tokens, keyTokens, columns: columnsOf(asked), x: built.request.x, context: built.request.context ?? null,
    dModel: asked.dModel, heads: asked.heads, dK: reply.result.shape.dK, dV: reply.result.shape.dV,
    m: keyTokens.length, self: asked.attention === 'self', scaleMode: asked.scaleMode,
    identity: asked.weightsMode === 'identity',
    result: reply.result, weights: reply.weights, layer: 0, typedX: true, layerWeights: null,
    // grouped-query attention's key/value heads, and whether q and k were turned (rotary positions)
    kvHeads: reply.result.shape.kvHeads ?? asked.heads, rotary: built.request.rotary ?? null, window: built.request.window ?? 0,
    // a real model's layer ("Open this layer in the lab"): which one, and its tensors' names (shared/layer-name.mjs)
    model: asked.modelBlock?.source ?? null, blockEdits: asked.blockEdits ?? {}, modelRows: Boolean(asked.inputs && asked.modelBlock?.source),
    ...stack,
  };
}

// Said under a refusal while the last good tables stay on screen: they are dimmed (onStale) and no
// longer the numbers of the controls above them.
const STALE = { field: 'stale', key: 'problem.staleTables' };

/**
 * createRunner({ store, compute, problems, onView(view), onEngine(line), fallBack(problems), onStale(stale) }):
 * update() computes the store's state; `given` is the state set from outside, the one that falls
 * back to the first example when nothing was drawn yet and it cannot be; onStale(true) when a state is
 * refused while an earlier one's tables stay drawn, onStale(false) when a state is drawn again.
 */
export function createRunner({ store, compute, problems, onView, onEngine, fallBack, onStale = () => {} }) {
  let latest = 0;
  let answered = 0;
  const runner = { view: null, given: store.state, stopped: false, engineLine: null, stale: false };
  const refuse = (id, asked, found) => {
    answered = id;
    if (!runner.view && asked === runner.given) return fallBack(found);
    problems.request = runner.view ? [...found, STALE] : found;
    runner.stale = Boolean(runner.view);
    onStale(runner.stale);
    problems.show();
  };
  runner.update = async () => {
    const id = ++latest;
    const asked = store.state;
    const built = store.request;
    if (built.problems) return refuse(id, asked, built.problems);
    const started = performance.now();
    const reply = await compute.run(built.request);
    if (id !== latest || runner.stopped) return;  // a newer input came in meanwhile: this answer is stale
    if (reply.error) return refuse(id, asked, [pageProblem(reply.error, asked)]);
    answered = id;
    problems.request = [];
    runner.stale = false;
    onStale(false);
    runner.view = viewOf(asked, built, reply);
    onView(runner.view);
    problems.show();
    const info = await compute.ready;
    // the opening example's numbers may come with the page (first-result.mjs); beside a worker,
    // small examples are computed on the page (compute.mjs)
    const key = reply.shipped ? 'engine.shipped' : 'engine.computed';
    const where = info.where === 'page' ? 'OnPage' : reply.where === 'page' ? 'Here' : '';
    runner.engineLine = { key: `${key}${where}`, values: { ms: (performance.now() - started).toFixed(1), build: engineName(info, reply.shipped) } };
    onEngine(runner.engineLine);
  };
  runner.stop = () => {
    runner.stopped = true;
    latest++;
  };
  // a method, not a getter defined on the object: V8 keeps the first accessor defined on objects of
  // one shape in that shape, and with it the first lab (found by tests/e2e/hostile.test.mjs)
  runner.isAnswered = () => answered === latest;
  return runner;
}
