// The in-process built-in functions, by the package repository name that selects them, and the releases of those
// packages each reproduces.
import type { BuiltinFunction } from '../router.js';
import { AUTO_READY, autoReady, type AutoReadyOptions } from './autoready/autoReady.js';
import { PATCH_AND_TRANSFORM, patchAndTransform } from './pt/patchAndTransform.js';

export { AUTO_READY, autoReady, type AutoReadyOptions } from './autoready/autoReady.js';
export { ENVIRONMENT_KEY, PATCH_AND_TRANSFORM, patchAndTransform } from './pt/patchAndTransform.js';
export { goQuote } from './gostd.js';
export { BUILTIN_RELEASES, type BuiltinRelease } from './releases.js';

export interface BuiltinOptions {
  autoReady?: AutoReadyOptions;
}

/**
 * Every built-in, keyed by the package repository name that selects it (see chooseRuntime).
 *
 * @example new RoutingRunner({ builtins: builtinFunctions(), functionOf, remote })
 */
export function builtinFunctions(options: BuiltinOptions = {}): ReadonlyMap<string, BuiltinFunction> {
  return new Map<string, BuiltinFunction>([
    [PATCH_AND_TRANSFORM, patchAndTransform],
    [AUTO_READY, autoReady(options.autoReady)],
  ]);
}
