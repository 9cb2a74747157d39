// Which upstream releases each built-in reproduces. A built-in stands in for a Function only when the Function pins
// one of these (builtinRuntime.ts); any other version runs as written, since its behaviour may differ.
import { AUTO_READY } from './autoready/autoReady.js';
import { PATCH_AND_TRANSFORM } from './pt/patchAndTransform.js';

export interface BuiltinRelease {
  /** The versions the built-in reproduces, as a semver range over the package's tag. */
  range: string;
  /** The same for people: `v0.10.x`. */
  reproduces: string;
  /** The release the built-in was checked against, a version inside `range`. */
  reference: string;
}

/**
 * Per built-in, by repository name.
 *
 * - function-patch-and-transform: v0.10.0 added automatic connection details for v2 XRs (a composed connection
 *   Secret, writeConnectionSecretToRef in the input) and changed transforms and patches; v0.10.1 to v0.10.8 are
 *   dependency updates only, and the code after them changes no behaviour. v0.9.x and older behave differently.
 * - function-auto-ready: v0.7.0 started reading its input (ttl; a malformed input is fatal) and added CEL health
 *   checks behind a feature gate and the --ttl flag; the code after it changes no behaviour. v0.6.x reads no input.
 */
export const BUILTIN_RELEASES: Readonly<Record<string, BuiltinRelease>> = {
  [PATCH_AND_TRANSFORM]: { range: '>=0.10.0 <0.11.0', reproduces: 'v0.10.x', reference: 'v0.10.8' },
  [AUTO_READY]: { range: '>=0.7.0 <0.8.0', reproduces: 'v0.7.x', reference: 'v0.7.0' },
};
