// The engine API's "Real models" calls: a Hugging Face folder opened where the engine runs (the
// worker reads the File objects slice by slice itself), kept there by the lab's key, and run on the
// learning engine (engine.transformer()). The reader ({ openModel, runModel }, or an async function
// giving it: imported when the first model is opened) is given by whoever composes the API, as the
// engine imports no feature. Errors come back as data, naming the file.
import { learning } from './training-calls.mjs';

const failure = (error) => ({ error: { name: error?.name ?? 'Error', file: error?.file ?? null, problem: error?.problem ?? null, message: String(error?.message ?? error) } });

// What crosses back to the page: the weights per head (not every intermediate), no logits (n × vocab).
function answer(result) {
  return {
    tokens: result.tokens, ids: result.ids, n: result.n, next: result.next, hidden: result.hidden,
    layers: result.layers.map(({ input, output, hidden, heads }) => ({ input, output, hidden, heads: heads.map(({ weights }) => ({ weights })) })),
  };
}

/** open(key, files, onProgress) → { report } | { error }; run(key, input) → the result | { error }; close(key). */
export function modelCalls(api, given) {
  const models = new Map();  // lab key → the open model
  let reader = typeof given === 'function' ? null : given;
  const missing = () => failure({ name: 'Error', message: 'this page was built without the "Real models" reader' });
  return {
    async open(key, files, onProgress) {
      models.delete(key);  // the last model is let go before the next is read
      try {
        if (typeof given === 'function') reader ??= await given();
        if (!reader) return missing();
        api.learnerReady = await learning(api);
        const model = await reader.openModel([...files], { onProgress: onProgress ? (p) => onProgress(p) : undefined });
        models.set(key, model);
        return { report: model.report };
      } catch (error) {
        return failure(error);
      }
    },
    run(key, input) {
      if (!reader) return missing();
      const model = models.get(key);
      if (!model) return failure({ name: 'Error', message: 'no model is open: choose a model folder first' });
      try {
        return answer(reader.runModel(api.learnerReady, model, input));
      } catch (error) {
        return failure(error);
      }
    },
    close(key) {
      models.delete(key);
    },
  };
}
