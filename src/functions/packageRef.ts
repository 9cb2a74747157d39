// A Function's spec.package split into the parts that decide whether a built-in may stand in for it: where the
// repository lives, its name, and the tag or digest it is pinned to. Crossplane v2 has no default registry, so a
// reference is taken as written: nothing is added to it.

/** The parts of an OCI package reference such as `xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0`. */
export interface PackageRef {
  /** Everything before the repository name, e.g. `xpkg.crossplane.io/crossplane-contrib`; '' when there is none. */
  location: string;
  /** The last path element, e.g. `function-auto-ready`. */
  repository: string;
  /** The tag, e.g. `v0.7.0`; undefined when the reference has none. */
  tag?: string;
  /** The digest after `@`, e.g. `sha256:…`; undefined when the reference has none. */
  digest?: string;
}

/**
 * Splits a package reference. The tag is what follows the last `:` of the last path element, so a registry port
 * (`localhost:5000/…`) is part of the location.
 *
 * @example parsePackageRef('xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0')
 * // { location: 'xpkg.crossplane.io/crossplane-contrib', repository: 'function-auto-ready', tag: 'v0.7.0' }
 */
export function parsePackageRef(pkg: string): PackageRef {
  const at = pkg.indexOf('@');
  const named = at < 0 ? pkg : pkg.slice(0, at);
  const digest = at < 0 ? undefined : pkg.slice(at + 1);
  const slash = named.lastIndexOf('/');
  const location = slash < 0 ? '' : named.slice(0, slash);
  const last = named.slice(slash + 1);
  const colon = last.indexOf(':');
  const repository = colon < 0 ? last : last.slice(0, colon);
  const tag = colon < 0 ? undefined : last.slice(colon + 1);
  return {
    location,
    repository,
    ...(tag !== undefined && tag !== '' ? { tag } : {}),
    ...(digest !== undefined && digest !== '' ? { digest } : {}),
  };
}

/** A registry host (optionally with a port) followed by path components, as the OCI distribution spec names them. */
const LOCATION = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$/;

/** What a location must look like, for error messages. */
export const LOCATION_FORM =
  'a registry host with an optional port and path, lowercase, without scheme, tag or trailing slash, such as xpkg.crossplane.io/crossplane-contrib';

/**
 * Whether `text` is a location a package repository can live under: a lowercase registry host, an optional port, and
 * path components, with no scheme, tag, digest or trailing slash.
 *
 * @example isPackageLocation('registry.acme.io:5000/mirror/crossplane-contrib') // true
 */
export function isPackageLocation(text: string): boolean {
  return LOCATION.test(text);
}
