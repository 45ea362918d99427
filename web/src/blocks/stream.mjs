// The residual stream's rows (pure): kept in shared/stream-rows.mjs, which "Explain this number"
// reads too (a stream cell explains itself from the rows above it).
export { streamRows, STREAM_STAGES } from '../shared/stream-rows.mjs';
