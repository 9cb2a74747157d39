// The package objects the resolver creates and, with upgrades, finds and moves: upstream's resolver lists the packages
// of the dependency's kind and takes the one whose spec.package names the dependency's repository, as the Lock names
// packages by their original source, before any ImageConfig rewrite; its installed version is status.resolvedPackage's
// when that is set (a rewrite may change it), else spec.package's.
import { errorMessage } from '../../base/index.js';
import { CONTENT_TYPE, type KubeClient, type KubeObject } from '../../kube/index.js';
import { packageSource, parseReference, type Reference } from '../oci/index.js';
import type { PackageType } from './types.js';

export interface PackageKind {
  apiVersion: string;
  kind: string;
  /** The collection's path under the API server. */
  path: string;
}

/** Where each package type's objects are. */
export const PACKAGE_KINDS: Record<PackageType, PackageKind> = {
  Configuration: {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Configuration',
    path: '/apis/pkg.crossplane.io/v1/configurations',
  },
  Provider: { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider', path: '/apis/pkg.crossplane.io/v1/providers' },
  Function: { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function', path: '/apis/pkg.crossplane.io/v1/functions' },
};

type PackageObject = KubeObject & { spec?: { package?: unknown }; status?: { resolvedPackage?: unknown } };

export interface InstalledPackage {
  name: string;
  resourceVersion?: string;
  /** Its spec.package. */
  package: string;
  /** The tag or digest it runs. */
  version: string;
}

/**
 * The installed package of `source` among the kind's objects; the last listed when several match, as upstream's loop
 * keeps the last. A spec.package that is not a full reference matches nothing.
 */
export async function findInstalled(
  client: KubeClient,
  kind: PackageKind,
  source: string,
  signal: AbortSignal,
): Promise<InstalledPackage | undefined> {
  let list: { items?: PackageObject[] };
  try {
    list = await client.request<{ items?: PackageObject[] }>('GET', kind.path, { signal });
  } catch (err) {
    throw new Error(`cannot get dependency package: ${errorMessage(err)}`, { cause: err });
  }
  let found: InstalledPackage | undefined;
  for (const item of list.items ?? []) found = installedOf(item, source) ?? found;
  return found;
}

/** The object as the installed package of `source`; undefined when its spec.package names another. */
function installedOf(item: PackageObject, source: string): InstalledPackage | undefined {
  const pkg = item.spec?.package;
  const ref = typeof pkg === 'string' ? referenceOf(pkg) : undefined;
  if (typeof pkg !== 'string' || ref === undefined || packageSource(ref) !== source) return undefined;
  const resolved = item.status?.resolvedPackage;
  const resolvedRef = typeof resolved === 'string' && resolved !== '' ? referenceOf(resolved) : undefined;
  const resourceVersion = item.metadata.resourceVersion;
  return {
    name: item.metadata.name,
    ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}),
    package: pkg,
    version: versionOf(resolvedRef ?? ref),
  };
}

/**
 * Moves the package to `pkg` with one merge patch carrying the resourceVersion listed, so a package changed since is
 * left as it is and the resolver tries again; nothing else of the object is written.
 */
export async function movePackage(
  client: KubeClient,
  target: { kind: PackageKind; installed: InstalledPackage; package: string },
  signal: AbortSignal,
): Promise<void> {
  const { kind, installed } = target;
  const metadata = installed.resourceVersion !== undefined ? { resourceVersion: installed.resourceVersion } : {};
  await client.request('PATCH', `${kind.path}/${installed.name}`, {
    body: { metadata, spec: { package: target.package } },
    contentType: CONTENT_TYPE.mergePatch,
    signal,
  });
}

/** The reference's digest when it has one, else its tag: what the registry is asked for. */
function versionOf(ref: Reference): string {
  return ref.digest ?? ref.tag ?? '';
}

function referenceOf(text: string): Reference | undefined {
  try {
    return parseReference(text);
  } catch {
    return undefined;
  }
}
