// Where Node gets an engine build: the glue imported, the .wasm read from disk (Node's fetch() cannot
// read files). The package's "node" side (package.json "imports": #engine-files); files.mjs is the browser's.
import { readFile } from 'node:fs/promises';

/** The build `name` beside this file (or in `baseUrl`): { glue, compiled }, as files.mjs gives them. */
export function engineFiles(name, { baseUrl = new URL('./', import.meta.url), wasmBinary }) {
  const compiled = wasmBinary ? WebAssembly.compile(wasmBinary)
    : readFile(new URL(`attention-${name}.wasm`, baseUrl)).then((bytes) => WebAssembly.compile(bytes));
  return { glue: import(new URL(`attention-${name}.mjs`, baseUrl).href), compiled };
}
