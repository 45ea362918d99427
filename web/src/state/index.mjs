// The lab's state: the model and its rules (model.mjs), the engine's request (request.mjs), links
// (link.mjs), a host's settings (settings.mjs), actions (actions.mjs) and the store (store.mjs).
export * from './model.mjs';
export * from './request.mjs';
export * from './link.mjs';
export * from './settings.mjs';
export { reduce, keepAcrossPresets, SELECTION_ACTIONS } from './actions.mjs';
export { createStore } from './store.mjs';
