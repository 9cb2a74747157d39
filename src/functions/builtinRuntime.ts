// The one decision of whether a Function runs in-process as a built-in or as the package it names. The router
// (which runner a call goes to), the package controller (whether a Deployment runs, and the Function's Runtime
// condition) and `compositor render` all ask this function, so they never disagree.
//
// A built-in stands in for a Function only when the Function names upstream's package (at a location listed in
// --builtin-function-registries) at a version the built-in reproduces (releases.ts). Anything else, a fork, an
// older or newer release, a digest, a tag that is not a version, runs as written. The annotation
// compositor.crossplane.io/builtin forces either way; --builtin-functions=false turns every built-in off.
import semver from 'semver';
import { BUILTIN_RELEASES, type BuiltinRelease } from './builtin/releases.js';
import { ENDPOINT_ANNOTATION } from './endpoint.js';
import { parsePackageRef, type PackageRef } from './packageRef.js';

/** Per Function: "true" runs the built-in whatever the registry and version, "false" runs the package. */
export const BUILTIN_ANNOTATION = 'compositor.crossplane.io/builtin';

/**
 * Where upstream publishes crossplane-contrib's functions: xpkg.crossplane.io (served from ghcr.io, where the
 * functions' CI pushes) and the historical xpkg.upbound.io.
 */
export const DEFAULT_BUILTIN_REGISTRIES: readonly string[] = [
  'xpkg.crossplane.io/crossplane-contrib',
  'xpkg.upbound.io/crossplane-contrib',
  'ghcr.io/crossplane-contrib',
];

export interface BuiltinPolicy {
  /** --builtin-functions: false runs every Function's package, whatever its annotations. */
  enabled: boolean;
  /** --builtin-function-registries: the locations whose repositories are upstream's (or a mirror of them). */
  registries: readonly string[];
}

/** Built-ins on, upstream's locations: what `compositor start` does without flags. */
export const DEFAULT_BUILTIN_POLICY: BuiltinPolicy = { enabled: true, registries: DEFAULT_BUILTIN_REGISTRIES };

/** What the decision needs of a Function; pkg.crossplane.io/v1 Function objects fit. */
export interface FunctionLike {
  metadata: { annotations?: Record<string, string> };
  spec?: { package?: string };
}

/** Which way a Function runs, and why in one sentence (the Runtime condition's message and the log line). */
export interface RuntimeChoice {
  /** The built-in that serves the Function in-process; undefined when its package runs as written. */
  builtin?: string;
  message: string;
  /** The annotation's value when it is neither "true" nor "false": ignored, and reported on the Function. */
  invalidAnnotation?: string;
}

/**
 * Decides how a Function runs.
 *
 * @example
 * chooseRuntime({ metadata: {}, spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0' } }, DEFAULT_BUILTIN_POLICY)
 * // { builtin: 'function-auto-ready', message: "Running in-process as compositor's built-in function-auto-ready (reproduces v0.7.x)" }
 */
export function chooseRuntime(fn: FunctionLike, policy: BuiltinPolicy): RuntimeChoice {
  const annotation = fn.metadata.annotations?.[BUILTIN_ANNOTATION];
  const forced = annotation === 'true' || annotation === 'false' ? annotation : undefined;
  // An explicit endpoint says where the user runs this function: it is called there unless forced in-process.
  const endpoint = forced === undefined ? fn.metadata.annotations?.[ENDPOINT_ANNOTATION] : undefined;
  const choice =
    endpoint === undefined
      ? decide(parsePackageRef(fn.spec?.package ?? ''), forced, policy)
      : asWritten(`called at its ${ENDPOINT_ANNOTATION} annotation ${JSON.stringify(endpoint)}`);
  if (annotation === undefined || forced !== undefined) return choice;
  return {
    ...choice,
    message: `${choice.message}; annotation ${BUILTIN_ANNOTATION}: ${JSON.stringify(annotation)} is ignored: expected "true" or "false"`,
    invalidAnnotation: annotation,
  };
}

function decide(ref: PackageRef, forced: 'true' | 'false' | undefined, policy: BuiltinPolicy): RuntimeChoice {
  const name = ref.repository;
  const release = Object.hasOwn(BUILTIN_RELEASES, name) ? BUILTIN_RELEASES[name] : undefined;
  if (release === undefined) {
    const why = forced === 'true' ? `, so annotation ${BUILTIN_ANNOTATION}: "true" cannot apply` : '';
    return asWritten(`compositor has no built-in ${name === '' ? 'for an empty package' : name}${why}`);
  }
  if (!policy.enabled) return asWritten('built-in functions are off (--builtin-functions=false)');
  if (forced === 'false') return asWritten(`forced by annotation ${BUILTIN_ANNOTATION}: "false"`);
  if (forced === 'true') return inProcess(name, release, `: forced by annotation ${BUILTIN_ANNOTATION}: "true"`);
  const location = ref.location.toLowerCase();
  if (!policy.registries.includes(location)) {
    const where = location === '' ? 'a package without a registry' : location;
    return asWritten(`${where} is not a location of upstream's ${name} (--builtin-function-registries)`);
  }
  const mismatch = versionMismatch(ref, name, release);
  return mismatch === undefined ? inProcess(name, release, '') : asWritten(mismatch);
}

/** Why the pinned version is not one the built-in reproduces; undefined when it is. */
function versionMismatch(ref: PackageRef, name: string, release: BuiltinRelease): string | undefined {
  if (ref.digest !== undefined) return `a digest is not a version the built-in ${name} is known to reproduce`;
  if (ref.tag === undefined) return 'the package names no version';
  const version = semver.valid(ref.tag);
  if (version === null) return `tag ${JSON.stringify(ref.tag)} is not a semantic version`;
  // Pre-releases never satisfy the range (semver's default): what a release candidate does is not known yet.
  if (!semver.satisfies(version, release.range)) {
    return `version ${ref.tag} is outside the built-in ${name}'s range ${release.range}`;
  }
  return undefined;
}

function inProcess(name: string, release: BuiltinRelease, why: string): RuntimeChoice {
  return {
    builtin: name,
    message: `Running in-process as compositor's built-in ${name} (reproduces ${release.reproduces})${why}`,
  };
}

function asWritten(why: string): RuntimeChoice {
  return { message: `Running the package as written: ${why}` };
}
