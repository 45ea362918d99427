// The settings the lab writes into its own .safetensors and JSON (__metadata__: scale, mask,
// positions, rotaryTheta, rotaryDims, window; apply.mjs metadataOf), read back when such a file is loaded, so that a layer saved with
// sinusoidal positions, divisor 7 and a causal mask loads with them. Only the lab's own files
// (format "attention-lab") are read this way; each value is checked as a link's would be.
import { own } from '../shared/own.mjs';

const FLOAT32_MIN_NORMAL = 2 ** -126;
const FLOAT32_MAX = 3.4028234663852886e38;
const SCALES = { sqrt_dk: 'sqrt_dk', none: 'none' };
const MASKS = { none: 'none', causal: 'causal', padding: 'padding' };
const POSITIONS = { none: 'none', sinusoidal: 'sinusoidal' };

/**
 * The state changes a lab file's metadata asks for: { changes, read } where `read` lists what came
 * from the file ({ setting, value }, for the status line), or { changes: {}, read: [] } for any
 * other file. A value the lab cannot take is left out (and the lab's default kept).
 */
export function settingsFromMetadata(metadata) {
  const changes = {};
  const read = [];
  if (own(metadata, 'format') !== 'attention-lab') return { changes, read };
  const scale = own(metadata, 'scale');
  const divisor = typeof scale === 'string' && /^[0-9.eE+-]+$/.test(scale) ? Number(scale) : NaN;
  if (own(SCALES, scale) !== undefined) {
    Object.assign(changes, { scaleMode: own(SCALES, scale) });
    read.push({ setting: 'scale', value: scale });
  } else if (divisor >= FLOAT32_MIN_NORMAL && divisor <= FLOAT32_MAX) {
    Object.assign(changes, { scaleMode: 'custom', scaleDivisor: divisor });
    read.push({ setting: 'divisor', value: divisor });
  }
  const mask = own(MASKS, own(metadata, 'mask'));
  if (mask !== undefined) {
    changes.maskMode = mask;
    read.push({ setting: 'mask', value: mask });
  }
  const positions = own(POSITIONS, own(metadata, 'positions'));
  if (positions !== undefined) {
    changes.positions = positions;
    read.push({ setting: 'positions', value: positions });
  }
  return { changes: { ...changes, ...modernSettings(metadata, read) }, read };
}

// A whole number ≥ `least` written by the lab (kvHeads comes from the tensors' shapes, not from here)
const whole = (text, least) => (typeof text === 'string' && /^\d+$/.test(text) && Number(text) >= least ? Number(text) : undefined);

// Rotary positions (θ above 1, rotated features even) and a window, as metadataOf writes them
function modernSettings(metadata, read) {
  const changes = {};
  const thetaText = own(metadata, 'rotaryTheta');
  const theta = typeof thetaText === 'string' && /^[0-9.eE+]+$/.test(thetaText) ? Number(thetaText) : NaN;
  const dims = whole(own(metadata, 'rotaryDims'), 0);
  if (theta > 1 && theta <= FLOAT32_MAX && dims !== undefined && dims % 2 === 0) {
    Object.assign(changes, { rotary: true, rotaryTheta: theta, rotaryDims: dims });
    read.push({ setting: 'rotary', value: theta }, { setting: 'rotaryDims', value: dims });
  }
  const window = whole(own(metadata, 'window'), 1);
  if (window !== undefined) {
    changes.window = window;
    read.push({ setting: 'window', value: window });
  }
  return changes;
}
