// The engine's WebAssembly instance, and a new one when it traps. A trap ("memory access out of
// bounds", "unreachable", an abort) unwinds out of C++ in the middle of a call: what that call had
// allocated is never freed, the C++ stack pointer is left where it was, and memory may hold a
// half-written structure. Nothing after that can be trusted, so the instance is replaced by a fresh
// one of the same compiled module; the call that trapped fails with a message, and later calls run
// on the new instance (prepared models set themselves up on it again, see attention.mjs).

/** An error thrown by WebAssembly itself (a trap, an abort, its stack running out), not by our checks. */
export function isTrap(error) {
  if (error instanceof WebAssembly.RuntimeError) return true;
  // a stack overflow inside WebAssembly is a RangeError; ours always carry `field`
  return error instanceof RangeError && error.field === undefined && /call stack/i.test(error.message);
}

// The Emscripten glue run on an instance made here: synchronously when `sync` (the glue then runs
// to its end before returning), else with WebAssembly.instantiate. Returns the glue's Module object
// (the options object itself) and, when not `sync`, a promise of it being ready.
function glueOn(createModule, wasmModule, sync) {
  let failed;
  const failure = new Promise((resolve, reject) => { failed = reject; });
  const options = {
    instantiateWasm(imports, receiveInstance) {
      if (sync) {
        const instance = new WebAssembly.Instance(wasmModule, imports);
        receiveInstance(instance, wasmModule);
        return instance.exports;
      }
      WebAssembly.instantiate(wasmModule, imports).then((instance) => receiveInstance(instance, wasmModule), failed);
      return {};
    },
  };
  const ready = Promise.race([createModule(options), failure]);
  return { module: options, ready };
}

/**
 * The instance an engine runs on: `module` (the glue's Module), `generation` (1 more after each
 * restart) and `restart(cause)`. Made from the glue's factory and the compiled module.
 */
export class Runtime {
  #createModule;
  #wasmModule;

  constructor(createModule, wasmModule, module) {
    this.#createModule = createModule;
    this.#wasmModule = wasmModule;
    this.module = module;
    this.generation = 0;
    this.restarting = null;  // a promise while a restart could not be made synchronously
  }

  static async create(createModule, wasmModule) {
    const { module, ready } = glueOn(createModule, wasmModule, false);
    await ready;
    return new Runtime(createModule, wasmModule, module);
  }

  /** A fresh instance in place of the current one. Synchronous where the runtime allows it. */
  restart() {
    this.generation++;
    try {
      const { module } = glueOn(this.#createModule, this.#wasmModule, true);
      if (module.calledRun && typeof module._attn_has_simd === 'function') {
        this.module = module;
        return;
      }
    } catch {
      // a main thread that refuses synchronous instantiation of a large module: go on asynchronously
    }
    this.module = null;
    const { module, ready } = glueOn(this.#createModule, this.#wasmModule, false);
    this.restarting = ready.then(() => {
      this.module = module;
      this.restarting = null;
    });
  }

  /** The live Module; while a restart is still on its way, an Error saying so (the next call works). */
  live() {
    if (this.module) return this.module;
    const error = new Error('the engine is starting again after a WebAssembly error; try again in a moment');
    error.field = 'engine';
    throw error;
  }
}

/**
 * `call(module)` on the live instance; a trap restarts the instance and is thrown as an Error that
 * says so (field 'engine'), with the trap as its cause. Any other error passes as it is.
 */
export function guarded(runtime, what, call) {
  const module = runtime.live();
  try {
    return call(module);
  } catch (error) {
    if (!isTrap(error)) throw error;
    if (runtime.module === module) runtime.restart();
    const failure = new Error(`${what} failed inside WebAssembly (${error.message}); the engine was started again ` +
      'with fresh memory, so later calls work (prepared models are set up again; trainers must be created again)', { cause: error });
    failure.field = 'engine';
    throw failure;
  }
}
