// A worker that reads a model's files for one opening (src/models/remote-reads.mjs): each request's
// bytes read into the buffer it brings (or a new one), and the buffer moved back. The pieces are given
// back at the end ({ keep }) and the worker is stopped, which frees them.
import { bytesInto } from './src/models/reader.mjs';

const kept = [];  // the pieces given back, held until the worker stops
self.addEventListener('message', async ({ data }) => {
  if (data.keep) {
    kept.push(...data.keep);
    return;
  }
  const { id, blob, start, end, buffer } = data;
  try {
    const bytes = await bytesInto(blob, start, end, buffer);
    self.postMessage({ id, buffer: bytes.buffer, length: bytes.byteLength }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ id, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
  }
});
