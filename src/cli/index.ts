// cli: parses and validates the flags (once, here: nothing else reads the command line or the environment) and runs
// the commands: start and dev (the engine built by src/engine, run by the manager), render, diagnose and trace.
export {
  envName,
  flagDefaults,
  START_FLAGS,
  type FlagDefinition,
  type IgnoredFlag,
  type StartConfig,
} from './flags.js';
export {
  buildProgram,
  finishConfig,
  runProgram,
  UsageError,
  type CommandHandlers,
  type DevOptions,
} from './program.js';
export { ACCEPTED_FORMS, FlagValueError, LOG_LEVELS, parseValue, type LogLevel, type ValueKind } from './values.js';
export { crossplaneFlagTableMarkdown, flagTableMarkdown } from './flagTable.js';
export { IGNORED_FLAGS, MAPPED_FLAGS, SAME_NAME_FLAGS } from './crossplaneFlags.js';
export { warnIgnoredFlags } from './crossplaneOptions.js';
export { runOperationRender, type OperationRenderOptions } from './operationRender.js';
export { runRender, DEVELOPMENT_TARGET_ANNOTATION, type RenderOptions } from './render.js';
export { diagnose, type Diagnosis, type Facts } from './diagnosis.js';
export { runDiagnose, type DiagnoseOptions } from './diagnose.js';
export { runTrace, type TraceOptions } from './trace.js';
export { printTrace, type TraceFormat } from './tracePrinters.js';
export { buildTree, childRefs, type TraceNode, type TracedObject, type ObjectRef } from './traceTree.js';
