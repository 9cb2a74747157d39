// One handler per vector kind, each driving the real module. A kind missing here fails its vectors.
import type { Vector } from './corpus.js';
import {
  childNameVector,
  composedTemplatesVector,
  connectionSecretRefVector,
  healthCheck,
  patchApply,
  readiness,
  supportsConnectionDetailsVector,
  validate,
} from './ptHandlers.js';
import { runFunction } from './runFunction.js';
import { convertPair, transform, transformChain } from './transformHandlers.js';

type Handler = (v: Vector) => void | Promise<void>;

const HANDLERS: Readonly<Record<string, Handler>> = {
  Transform: transform,
  TransformChain: transformChain,
  ConvertPair: convertPair,
  PatchApply: patchApply,
  ComposedTemplates: composedTemplatesVector,
  Readiness: readiness,
  ConnectionSecretRef: connectionSecretRefVector,
  SupportsConnectionDetails: supportsConnectionDetailsVector,
  Validate: validate,
  RunFunction: runFunction,
  HealthCheck: healthCheck,
  ChildName: childNameVector,
};

export function handlers(v: Vector): Handler | undefined {
  return HANDLERS[v.kind];
}
