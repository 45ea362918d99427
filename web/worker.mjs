// The engine in a Web Worker, so the page never waits on it. See src/engine-api.mjs.
import * as Comlink from 'comlink';
import { loadAttention } from './lib/attention.mjs';
import { createEngineApi } from './src/engine-api.mjs';

Comlink.expose(createEngineApi(loadAttention));
