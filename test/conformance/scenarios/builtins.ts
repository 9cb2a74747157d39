// The corpus pins some Functions to releases older than the ones compositor's built-ins reproduce (the docs pages
// pin function-patch-and-transform v0.8.2, upstream's e2e tests function-auto-ready v0.3.0), and its expectations
// for them are the built-in's. No real function runs here, so the scenarios force the built-in for those, as a user
// would, with the compositor.crossplane.io/builtin annotation.
import {
  BUILTIN_ANNOTATION,
  BUILTIN_RELEASES,
  chooseRuntime,
  DEFAULT_BUILTIN_POLICY,
  parsePackageRef,
  type FunctionLike,
} from '../../../src/functions/index.js';
import type { KubeObject } from '../../../src/kube/index.js';

/**
 * A Function object as the scenario applies it: a built-in's package at another release forced to the built-in;
 * undefined for a Function no built-in serves.
 */
export function builtinFunction(object: KubeObject): KubeObject | undefined {
  const fn = object as KubeObject & FunctionLike;
  if (chooseRuntime(fn, DEFAULT_BUILTIN_POLICY).builtin !== undefined) return object;
  if (!Object.hasOwn(BUILTIN_RELEASES, parsePackageRef(fn.spec?.package ?? '').repository)) return undefined;
  const annotations = { ...(object.metadata.annotations as Record<string, string> | undefined) };
  annotations[BUILTIN_ANNOTATION] = 'true';
  return { ...object, metadata: { ...object.metadata, annotations } };
}
