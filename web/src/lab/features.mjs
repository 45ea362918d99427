// The features a lab mounts, in the order they draw: each is a folder under web/src whose
// index.mjs exports mount(ctx) (docs/architecture.md: the contract). The lab knows them only here.
import { mount as controls } from '../controls/index.mjs';
import { mount as tables } from '../tables/index.mjs';
import { mount as summary } from '../summary/index.mjs';
import { mount as blocks } from '../blocks/index.mjs';
import { mount as pictures } from '../pictures/index.mjs';
import { mount as scaling } from '../scaling/index.mjs';
import { mount as flash } from '../flash/index.mjs';
import { mount as kvCache } from '../kv-cache/index.mjs';
import { mount as rope } from '../rope/index.mjs';
import { mount as gqa } from '../gqa/index.mjs';
import { mount as windowChapter } from '../window/index.mjs';
import { mount as sinks } from '../sinks/index.mjs';
import { mount as contents } from '../contents/index.mjs';
import { mount as walk } from '../walk/index.mjs';
import { mount as exports } from '../exports/index.mjs';
import { mount as training } from '../training/index.mjs';
import { mount as layers } from '../layers/index.mjs';
import { mount as models } from '../models/index.mjs';
import { mount as practice } from '../practice/index.mjs';
import { mount as explain } from '../explain/index.mjs';

// { name, mount, section }: `section` is the data-view a feature's draw fills (drawn a frame later
// while out of view). The tables come first (their services reach the others); the training's
// section goes after the output, the layers' after the training's and the real models' after the layers'; practice draws last (its
// cards sit beside every table); the explanation follows its cell after everything (redraw).
export const FEATURES = [
  { name: 'controls', mount: controls },
  { name: 'contents', mount: contents },
  { name: 'tables', mount: tables },
  { name: 'summary', mount: summary, section: 'summary' },
  { name: 'blocks', mount: blocks, section: 'blocks' },
  { name: 'pictures', mount: pictures, section: 'pictures' },
  { name: 'scaling', mount: scaling, section: 'lab' },
  { name: 'flash', mount: flash, section: 'flash' },
  { name: 'kv-cache', mount: kvCache, section: 'kv-cache' },
  { name: 'rope', mount: rope, section: 'rope' },
  { name: 'gqa', mount: gqa, section: 'gqa' },
  { name: 'window', mount: windowChapter, section: 'window' },
  { name: 'sinks', mount: sinks, section: 'sinks' },
  { name: 'walk', mount: walk, section: 'learn' },
  { name: 'exports', mount: exports },
  { name: 'training', mount: training },
  { name: 'layers', mount: layers },
  { name: 'models', mount: models },
  { name: 'practice', mount: practice, section: 'practice' },
  { name: 'explain', mount: explain },
];
