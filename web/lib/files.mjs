// Where a browser (or a bundler's output) gets an engine build: its Emscripten glue and its compiled
// .wasm. The package's "browser" side (package.json "imports": #engine-files); files.node.mjs is Node's.
//
// Without baseUrl every build is named by a literal import('./attention-….mjs') and
// new URL('./attention-….wasm', import.meta.url), the patterns Vite, webpack, Rollup and esbuild
// follow: a bundler copies the glue and the .wasm into its output and rewrites both paths, with no
// configuration. With baseUrl (a folder served beside the page) the URLs are made at run time.
const BUILDS = {
  relaxed: () => [import('./attention-relaxed.mjs'), new URL('./attention-relaxed.wasm', import.meta.url)],
  simd: () => [import('./attention-simd.mjs'), new URL('./attention-simd.wasm', import.meta.url)],
  scalar: () => [import('./attention-scalar.mjs'), new URL('./attention-scalar.wasm', import.meta.url)],
  'learn-relaxed': () => [import('./attention-learn-relaxed.mjs'), new URL('./attention-learn-relaxed.wasm', import.meta.url)],
  'learn-simd': () => [import('./attention-learn-simd.mjs'), new URL('./attention-learn-simd.wasm', import.meta.url)],
  'learn-scalar': () => [import('./attention-learn-scalar.mjs'), new URL('./attention-learn-scalar.wasm', import.meta.url)],
};

// The .wasm at `url` compiled: streaming needs the server to send application/wasm; otherwise the
// bytes are compiled as they are.
function compileUrl(url) {
  const bytes = () => fetch(url, { credentials: 'same-origin' }).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b));
  return typeof WebAssembly.compileStreaming === 'function'
    ? WebAssembly.compileStreaming(fetch(url, { credentials: 'same-origin' })).catch(bytes)
    : bytes();
}

/**
 * The build `name` ('relaxed', 'simd', 'scalar', 'learn-relaxed', 'learn-simd', 'learn-scalar'): { glue, compiled }, two promises
 * started together (the .wasm compiles while the glue loads). `wasmBinary`: the bytes, no fetch.
 */
export function engineFiles(name, { baseUrl, wasmBinary }) {
  let glue;
  let wasmUrl;
  if (baseUrl === undefined) {
    [glue, wasmUrl] = BUILDS[name]();
  } else {
    wasmUrl = new URL(`attention-${name}.wasm`, baseUrl);
    glue = import(/* webpackIgnore: true */ /* @vite-ignore */ new URL(`attention-${name}.mjs`, baseUrl).href);
  }
  return { glue, compiled: wasmBinary ? WebAssembly.compile(wasmBinary) : compileUrl(wasmUrl) };
}
