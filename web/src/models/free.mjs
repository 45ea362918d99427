// Memory given back now rather than when a collector next runs: an ArrayBuffer moved into a new empty
// one (ArrayBuffer.prototype.transfer(0)) is detached at once and its bytes freed, where dropping the
// last reference leaves them until the heap is collected, which for a page's few large buffers (a run's
// 24 MB of arrays at GPT-2 small's 128 tokens) came after several of them had piled up. Where transfer
// is missing (Node 20), nothing is done: the collector frees them as before.
const canFree = typeof ArrayBuffer.prototype.transfer === 'function';

/**
 * Frees the buffers of `arrays` (typed arrays or ArrayBuffers; others skipped), each once: their arrays
 * then have length 0. The bytes freed (0 where transfer is missing).
 */
export function freeBuffers(arrays) {
  if (!canFree) return 0;
  let freed = 0;
  const buffers = arrays.map((a) => (ArrayBuffer.isView(a) ? a.buffer : a)).filter((b) => b instanceof ArrayBuffer && !b.detached);
  for (const buffer of new Set(buffers)) {
    try {
      freed += buffer.byteLength;
      buffer.transfer(0);
    } catch {
      freed -= buffer.byteLength;  // not detachable (a WebAssembly memory's, a shared one): left alone
    }
  }
  return freed;
}
