// The opening example's reply shipped with the page (scripts/first-result.mjs computes it at build
// time with the same engine), so the first tables are drawn before the worker has started. Only a
// request equal to the shipped one is answered from it, and only once; everything else goes to the
// engine.

function unpack(shipped) {
  return JSON.parse(JSON.stringify(shipped), (key, value) => {
    if (value && typeof value === 'object' && typeof value.f32 === 'string') {
      const bytes = Uint8Array.from(atob(value.f32), (c) => c.charCodeAt(0));
      return new Float32Array(bytes.buffer);
    }
    return value;
  });
}

/** compute (compute.mjs) answering the shipped request from `shipped` ({ key, reply }) the first time. */
export function withFirstResult(compute, shipped) {
  let pending = shipped ? shipped.key : null;
  return {
    ...compute,
    run(request) {
      if (pending !== null && JSON.stringify(request) === pending) {
        pending = null;
        return Promise.resolve({ ...unpack(shipped).reply, shipped: true });
      }
      pending = null;
      return compute.run(request);
    },
  };
}
