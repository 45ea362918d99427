// How a model's files are read while it is staged (open.mjs): in pieces of up to PIECE_BYTES, each
// into a buffer of a small pool, and up to `ahead` pieces further in the file read while the one before
// is used. A piece's bytes go on to WebAssembly memory (whose pages are touched there for the first
// time: 1.6–2.1 s for GPT-2 small's 474 MiB on the machine of docs/performance.md) or into a
// conversion; the file's read (1.6–1.9 s) runs meanwhile, in the browser's own process. Reads that
// follow the file's order are what the lab asks for: the tensors of a block lie together, and a
// tensor the read-ahead did not guess is read when asked for, the guessed pieces left to finish.
//
// A piece's view is valid until the next call of bytes(). The caller must not grow WebAssembly memory
// while a read is in flight (settled() waits for them; none starts until the next bytes() call): in
// Chromium, cross-origin isolated, a read in flight across a growth once never resolved.

// One read's size at most: a read costs about as much whatever its size up to here, and GPT-2 small's
// 148 tensors (190 reads one by one) come in 60.
export const PIECE_BYTES = 8 * 2 ** 20;

// Bytes [start, end) of `blob` into `buffer` (or a new one where too small) through a BYOB reader of
// the slice's stream, which fills the buffer given rather than allocating one a piece: a view of the
// bytes read (fewer when the file ended early). Where a Blob's stream cannot be read that way, a new
// buffer of its own.
export async function bytesInto(blob, start, end, buffer) {
  const length = end - start;
  const slice = blob.slice(start, end);
  let reader;
  try {
    reader = slice.stream().getReader({ mode: 'byob' });
  } catch {
    return new Uint8Array(await slice.arrayBuffer());
  }
  if (!(buffer?.byteLength >= length) || buffer.detached) buffer = new ArrayBuffer(Math.max(length, 8));
  let filled = 0;
  try {
    while (filled < length) {
      const { done, value } = await reader.read(new Uint8Array(buffer, filled, length - filled));
      // the buffer given was moved into `value` (an empty view of it when the file ended early)
      if (value) buffer = value.buffer;
      if (done) break;
      filled += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  return new Uint8Array(buffer, 0, filled);
}

// A small tensor the pieces do not hold (one behind them: the lab asks for a block's norms after its
// attention, which the file may have first) is read on its own, the pieces kept.
const SMALL_BYTES = 2 ** 20;

/**
 * The reading of one model's files: bytes(file, from, to, { whole }) gives a view of the file from
 * `from`: all of [from, to) when `whole`, else at least one byte of it. expect(file, from): reading
 * from there starts now (before an allocation, say), the pieces ahead with it. `ahead`: pieces read
 * ahead (0: none), while mayReadAhead() is true. `read(blob, start, end, buffer)`: how one piece is
 * read, bytesInto's contract (remote-reads.mjs: in a worker of their own); bytesInto by default.
 */
export class PieceReader {
  #ahead;
  #mayReadAhead;
  #pieces = [];  // { file, start, end, guessed, bytes (once read), error, done }: in the file's order, each where the one before ends
  #spare = [];  // buffers of pieces let go
  #buffers = new Set();  // every buffer of the pool, to free at the end
  #lent = null;  // the buffer of a view given out that no piece owns (joined), until the next bytes()
  #read;

  constructor({ ahead = 2, mayReadAhead = () => true, read = bytesInto } = {}) {
    this.#ahead = ahead;
    this.#mayReadAhead = mayReadAhead;
    this.#read = read;
  }

  async bytes(file, from, to, { whole = false } = {}) {
    this.#giveBack();
    this.#passed(file, from);
    const need = whole ? to : from + 1;
    const way = this.#way(from, to, need, whole);
    if (way === 'join') return this.#joined(file, from, to);
    if (way === 'alone') return this.#read(file, from, to, null);  // a buffer of its own, the pieces kept
    if (way === 'fresh') {
      this.#dropAll();
      this.#start(file, from, Math.max(to, Math.min(file.size, from + PIECE_BYTES)), false);
    }
    this.#readAhead();
    return this.#served(file, from, to, need, whole);
  }

  // How [from, need) is served: from the first piece ('held'), the first pieces joined ('join'), a
  // small read of its own ('alone'), or pieces read anew from `from` ('fresh').
  #way(from, to, need, whole) {
    const first = this.#pieces[0];
    if (first && first.start <= from && need <= first.end) return 'held';
    if (first && first.start <= from && this.#pieces.at(-1).end >= to && to - from <= PIECE_BYTES) return 'join';
    if (whole && first && to - from <= SMALL_BYTES) return 'alone';
    return 'fresh';
  }

  // The first piece's view from `from`, once read.
  async #served(file, from, to, need, whole) {
    const piece = this.#pieces[0];
    await piece.done;
    const end = Math.min(to, piece.start + (piece.bytes?.byteLength ?? 0));
    // a guess that failed or came back short (the file changed): read again as asked, so that what
    // is said is about the asker's read
    if (piece.guessed && (piece.error || end < need)) {
      this.#dropAll();
      return this.bytes(file, from, to, { whole });
    }
    if (piece.error) {
      this.#dropAll();
      throw piece.error;
    }
    return piece.bytes.subarray(from - piece.start, Math.max(from, end) - piece.start);
  }

  /** Reading from `from` of `file` under way now, if the pieces do not hold it already. */
  expect(file, from) {
    this.#passed(file, from);
    const first = this.#pieces[0];
    if (!first || first.start > from || from >= first.end) {
      this.#dropAll();
      this.#start(file, from, Math.min(file.size, from + PIECE_BYTES), true);
    }
    this.#readAhead();
  }

  /** Waits for every read in flight; none starts again until the next bytes() or expect(). */
  async settled() {
    await Promise.all(this.#pieces.map((piece) => piece.done));
  }

  /** The pool's buffers, for freeBuffers() once the reading is over (after settled()). */
  buffers() {
    const buffers = [...this.#buffers];
    this.#pieces = [];
    this.#spare = [];
    this.#buffers.clear();
    this.#lent = null;
    return buffers;
  }

  #giveBack() {
    this.#toSpare(this.#lent);
    this.#lent = null;
  }

  // Pieces before `from` in `file` let go (all of them for another file).
  #passed(file, from) {
    while (this.#pieces.length > 0 && (this.#pieces[0].file !== file || this.#pieces[0].end <= from)) this.#drop();
  }

  // [from, to) over the first pieces, joined in the first one's buffer (its bytes from `from` moved to
  // its start, the next piece's after them), lent until the next bytes(): no buffer more than the pool.
  async #joined(file, from, to) {
    const first = this.#pieces[0];
    await first.done;
    if (!first.bytes || first.bytes.buffer.byteLength < to - from || first.start + first.bytes.byteLength <= from) {
      this.#dropAll();  // failed or short: the asker's own read says what went wrong
      return this.bytes(file, from, to, { whole: true });
    }
    const { buffer, byteOffset, byteLength } = first.bytes;
    new Uint8Array(buffer).copyWithin(0, byteOffset + from - first.start, byteOffset + byteLength);
    const joined = new Uint8Array(buffer, 0, to - from);
    this.#pieces.shift();
    this.#lent = buffer;
    for (let at = first.start + byteLength; at < to;) {
      const piece = this.#pieces[0];
      await piece.done;
      const end = Math.min(to, piece.start + (piece.bytes?.byteLength ?? 0));
      if (piece.error || end <= at || piece.start !== at) {
        this.#dropAll();
        return this.bytes(file, from, to, { whole: true });
      }
      joined.set(piece.bytes.subarray(0, end - at), at - from);
      at = end;
      if (at < to) this.#drop();
    }
    return joined;
  }

  #dropAll() {
    while (this.#pieces.length > 0) this.#drop();
  }

  // The first piece let go: its buffer back to the pool once its read is over.
  #drop() {
    const piece = this.#pieces.shift();
    if (piece.bytes || piece.error) this.#toSpare(piece.bytes?.buffer);
    else piece.done.then(() => this.#toSpare(piece.bytes?.buffer));
  }

  // A buffer of the pool back among the spare ones
  #toSpare(buffer) {
    if (buffer && this.#buffers.has(buffer) && !buffer.detached) this.#spare.push(buffer);
  }

  #start(file, start, end, guessed) {
    const piece = { file, start, end, guessed, bytes: null, error: null };
    // the pool's buffers all hold a whole piece (or the whole file), so that any one serves any piece
    const spare = this.#spare.findIndex((b) => b.byteLength >= end - start);
    const buffer = spare >= 0 ? this.#spare.splice(spare, 1)[0] : new ArrayBuffer(Math.max(end - start, Math.min(PIECE_BYTES, file.size)));
    this.#buffers.delete(buffer);  // the read moves its bytes into a new ArrayBuffer, added when it is over
    piece.done = this.#read(file, start, end, buffer).then((bytes) => {
      piece.bytes = bytes;
      if (bytes.buffer.byteLength <= Math.max(PIECE_BYTES, end - start)) this.#buffers.add(bytes.buffer);
    }, (error) => {
      piece.error = error;
    });
    this.#pieces.push(piece);
    return piece;
  }

  // The pieces after the last one in its file, up to `ahead` of them past the one in use.
  #readAhead() {
    const file = this.#pieces[0]?.file;
    if (!file || !Number.isFinite(file.size) || !this.#mayReadAhead()) return;
    for (let from = this.#pieces.at(-1).end; this.#pieces.length <= this.#ahead && from < file.size; from = this.#pieces.at(-1).end) {
      this.#start(file, from, Math.min(file.size, from + PIECE_BYTES), true);
    }
  }
}
