// The tests' own safetensors writer (F32, the header padded to 8 bytes with spaces), independent of
// the lab's (web/src/layers/formats.mjs), so a file the lab reads is one the format describes.

/** { name: { shape, data } } and optional __metadata__ → the bytes of a .safetensors file. */
export function safetensors(tensors, metadata = null) {
  const header = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  const chunks = [];
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    const buffer = Buffer.from(Float32Array.from(data).buffer);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + buffer.length] };
    offset += buffer.length;
    chunks.push(buffer);
  }
  let json = Buffer.from(JSON.stringify(header));
  json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, ...chunks]);
}
