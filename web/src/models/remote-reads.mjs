// A model's files read in a worker of their own (web/read-worker.mjs), started for one opening and
// stopped after it. Why: in Chromium, a buffer filled by a Blob stream's BYOB reader stays mapped
// after ArrayBuffer.prototype.transfer(0), held by the reading side's own objects until that side's
// collector runs, which in the engine's worker may be never: the opening's three 8 MiB pieces stayed
// in its memory for the page's life. Read in a worker that is stopped with the pieces given back to
// it, they are freed at once (docs/performance.md, "The reading worker").
//
// The same contract as reader.mjs's bytesInto (a view of the bytes read, in the buffer given or a new
// one), so a PieceReader takes `read` as it is. Where the worker cannot start, fails, or a read gives
// no answer within STALL_MS, that read and every one after it are made here, with bytesInto: the
// opening goes on as before, with the buffers kept until collected.
import { bytesInto } from './reader.mjs';

/** How long a read may go unanswered before it is made here instead (a stalled or lost worker). */
export const STALL_MS = 20000;

// An error that crossed from the worker: its name and message, as the reader would have thrown it here.
function errorOf({ name, message }) {
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * The reads of one opening in a worker started from `url` (a module worker), or null where no worker
 * can start here. { read(blob, start, end, buffer), close(buffers), where() }: close() gives the
 * pool's buffers back to the worker and stops it, which frees them (reads after it are made here);
 * where() is 'worker', or 'here' once the reads fell back. `Worker` and `stallMs` may be given (tests).
 */
export function remoteReads(url, { Worker: WorkerClass = globalThis.Worker, stallMs = STALL_MS } = {}) {
  if (!url || typeof WorkerClass !== 'function') return null;
  let worker;
  try {
    worker = new WorkerClass(url, { type: 'module' });
  } catch {
    return null;
  }
  const waiting = new Map();  // id → { args, resolve, reject, timer }
  let broken = false;  // no more reads in the worker (fallen back, or closed)
  let fellBack = false;
  let next = 0;
  // every read in flight made here instead, and the worker stopped for good
  const fallBack = () => {
    if (broken) return;
    broken = true;
    fellBack = true;
    worker.terminate();
    for (const { args, resolve, reject, timer } of waiting.values()) {
      clearTimeout(timer);
      bytesInto(args[0], args[1], args[2], null).then(resolve, reject);
    }
    waiting.clear();
  };
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    fallBack();
  });
  worker.addEventListener('messageerror', fallBack);
  worker.addEventListener('message', ({ data }) => {
    const call = waiting.get(data?.id);
    if (!call) return;
    waiting.delete(data.id);
    clearTimeout(call.timer);
    if (data.error) call.reject(errorOf(data.error));
    else call.resolve(new Uint8Array(data.buffer, 0, data.length));
  });
  const read = (blob, start, end, buffer) => {
    if (broken) return bytesInto(blob, start, end, buffer);
    return new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { args: [blob, start, end], resolve, reject, timer: setTimeout(fallBack, stallMs) });
      const moved = buffer instanceof ArrayBuffer && !buffer.detached ? buffer : null;
      worker.postMessage({ id, blob, start, end, buffer: moved }, moved ? [moved] : []);
    });
  };
  const close = (buffers = []) => {
    if (broken) return;
    broken = true;
    const given = buffers.filter((b) => b instanceof ArrayBuffer && !b.detached);
    // moved, not copied: once the worker stops they are freed with it
    worker.postMessage({ keep: given }, given);
    worker.terminate();
  };
  return { read, close, where: () => (fellBack ? 'here' : 'worker') };
}
