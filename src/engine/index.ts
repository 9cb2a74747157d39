// engine: the composition root. Builds compositor's object graph from the parsed flags (shared informers, the event
// recorder, the function runner stack, the controllers this shard runs) and runs it as one Runnable. The CLI parses
// the flags and calls createEngine; nothing below this folder reads a flag or knows how the graph is wired.
export type { EngineConfig } from './config.js';
export { Engine, type EngineParts } from './engine.js';
export {
  FunctionCaller,
  runsExternally,
  type FunctionCallerConfig,
  type FunctionCallerOptions,
} from './functionCaller.js';
export { createEngine, managedSettings, type EngineOptions } from './wiring.js';
