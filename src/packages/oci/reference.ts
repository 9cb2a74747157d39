// Package references as Crossplane v2 accepts them. Crossplane v2 dropped the default registry (its --registry flag
// now refuses to start), so a package's spec.package must name its registry, repository and a tag or digest; the
// package CRDs enforce that with a CEL rule whose message is repeated here. Within that, the parts follow
// go-containerregistry's name package, which Crossplane parses references with.
import { isRfc1918 } from './addresses.js';
import { InvalidReferenceError } from './errors.js';

/** A parsed, fully qualified reference. `digest` wins over `tag` when both are given, as in go-containerregistry. */
export interface Reference {
  /** Host and optional port, e.g. `xpkg.crossplane.io` or `127.0.0.1:5000`. */
  registry: string;
  /** The repository path inside the registry, e.g. `crossplane-contrib/provider-nop`. */
  repository: string;
  tag?: string;
  /** `sha256:<64 hex>`. */
  digest?: string;
}

/** The message of the CEL rule on spec.package of Crossplane's Provider, Configuration and Function CRDs. */
export const NOT_FULLY_QUALIFIED =
  "must be a fully qualified image name, including the registry, repository, and tag or digest. For example, 'registry.example.com/repo/package:tag' or 'registry.example.com/repo/package[:tag]@sha256:1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef'.";

// The CEL rule itself (apis/pkg/v1/package_types.go): a registry with a dot, a repository, a tag or digest.
const FULLY_QUALIFIED = /^[^./]+(\.[^./]+)+(\/[^/:@]+)+(:[^:@]+(@sha256.+)?|@sha256.+)$/;
const TAG = /^\w[\w.-]{0,127}$/;
const REPOSITORY = /^[a-z0-9_./-]{1,255}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REGISTRY = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/**
 * Parses a package reference, refusing what Crossplane's API would refuse.
 *
 * @example parseReference('xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.5.0')
 * // { registry: 'xpkg.crossplane.io', repository: 'crossplane-contrib/provider-nop', tag: 'v0.5.0' }
 */
export function parseReference(ref: string): Reference {
  if (!FULLY_QUALIFIED.test(ref)) throw invalid(ref, NOT_FULLY_QUALIFIED);
  const at = ref.indexOf('@');
  const named = at < 0 ? ref : ref.slice(0, at);
  const digest = at < 0 ? undefined : ref.slice(at + 1);
  if (digest !== undefined && !DIGEST.test(digest)) throw invalid(ref, `digest "${digest}" is not sha256:<64 hex>`);
  const slash = named.indexOf('/');
  const registry = named.slice(0, slash);
  let repository = named.slice(slash + 1);
  let tag: string | undefined;
  const colon = repository.lastIndexOf(':');
  if (colon >= 0) {
    tag = repository.slice(colon + 1);
    repository = repository.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(ref, `tag "${tag}" is not a valid tag`);
  }
  if (!REGISTRY.test(registry)) throw invalid(ref, `registry "${registry}" is not a host[:port]`);
  if (!REPOSITORY.test(repository)) {
    throw invalid(ref, `repository "${repository}" must be lowercase letters, digits, "_", ".", "-" and "/"`);
  }
  return { registry, repository, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/** The reference as Crossplane prints a resolved one: `source@digest` when pinned by digest, else `source:tag`. */
export function formatReference(ref: Reference): string {
  if (ref.digest !== undefined) return `${packageSource(ref)}@${ref.digest}`;
  return `${packageSource(ref)}:${ref.tag ?? ''}`;
}

/** The package source without tag or digest (`registry/repository`), as Crossplane's lock records it. */
export function packageSource(ref: Reference): string {
  return `${ref.registry}/${ref.repository}`;
}

/** What the registry is asked for: the digest when there is one, else the tag. */
export function identifier(ref: Reference): string {
  return ref.digest ?? ref.tag ?? '';
}

/**
 * The URL schemes to try, in order. As go-containerregistry does, https always comes first; registries that are
 * usually run without TLS (localhost, loopback, RFC 1918 addresses, `.local` names) may also answer over http.
 */
export function schemesFor(registry: string): readonly ('https' | 'http')[] {
  return mayBeInsecure(registry) ? ['https', 'http'] : ['https'];
}

function mayBeInsecure(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '');
  if (host === 'localhost' || registry.includes('127.0.0.1') || registry.includes('::1')) return true;
  return /\.local(host)?$/.test(host) || isRfc1918(host);
}

function invalid(ref: string, detail: string): InvalidReferenceError {
  return new InvalidReferenceError(`cannot parse package reference "${ref}": ${detail}`);
}
