// The features a lab mounts, in the order they draw: each is a folder under web/src whose
// index.mjs exports mount(ctx) (docs/architecture.md: the contract). The lab knows them only here.

import { mount as mountControls } from '../controls/index.mjs';
import { mountTables, mountExplain, mountPictures, mountScaling, mountWalk, mountExports, mountPractice, mountTraining, mountLayers } from './adapters.mjs';

// name → mount; the tables come first (their services reach the others), practice draws last
// (its cards sit beside every table), the explanation redraws after all.
export const FEATURES = [
  ['controls', mountControls],
  ['tables', mountTables],
  ['pictures', mountPictures],
  ['scaling', mountScaling],
  ['walk', mountWalk],
  ['exports', mountExports],
  ['training', mountTraining],
  ['layers', mountLayers],
  ['practice', mountPractice],
  ['explain', mountExplain],
];
