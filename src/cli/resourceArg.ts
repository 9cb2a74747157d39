// The resource type argument as kubectl and `crossplane beta trace` accept it: `TYPE[.VERSION][.GROUP]`, where TYPE
// is a plural, singular, short name or kind, matched case-insensitively against API discovery.
import { errorMessage } from '../base/index.js';
import { isNotFound, type KubeClient } from '../kube/index.js';

/** One served resource type at one version. */
export interface ServedResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
}

/** One way to read the argument: TYPE, optionally in a group, optionally at a version. */
export interface ResourceQuery {
  type: string;
  group?: string;
  version?: string;
}

/**
 * No served resource type matches the argument; the message is kubectl's, followed by the group versions whose
 * discovery failed, since the type may be one of theirs.
 */
export class UnknownResourceTypeError extends Error {
  constructor(
    readonly argument: string,
    readonly undiscovered: readonly string[] = [],
  ) {
    const count = undiscovered.length;
    const where =
      count === 0
        ? ''
        : ` (discovery failed for ${count} group version${count === 1 ? '' : 's'}: ${undiscovered.join('; ')})`;
    super(`the server doesn't have a resource type "${argument}"${where}`);
    this.name = 'UnknownResourceTypeError';
  }
}

/**
 * The readings of an argument, most specific first, as kubectl parses it: `a.b.c` is TYPE a at version b of group c,
 * or else TYPE a of group b.c; `a.b` is TYPE a of group b; `a` is TYPE a of any group.
 */
export function parseResourceArg(argument: string): ResourceQuery[] {
  const [type = '', ...rest] = argument.toLowerCase().split('.');
  if (rest.length === 0) return [{ type }];
  const queries: ResourceQuery[] = [];
  if (rest.length >= 2) queries.push({ type, version: rest[0] ?? '', group: rest.slice(1).join('.') });
  queries.push({ type, group: rest.join('.') });
  return queries;
}

function names(r: ServedResource): string[] {
  return [r.plural, r.singular, r.kind.toLowerCase(), ...r.shortNames.map((s) => s.toLowerCase())];
}

/**
 * The first resource matching a query. `resources` lists each group at its preferred version first (core first, then
 * in discovery order), so an unversioned query gets the preferred version and an ungrouped one the first group.
 */
export function matchResource(resources: readonly ServedResource[], query: ResourceQuery): ServedResource | undefined {
  return resources.find(
    (r) =>
      (query.group === undefined || r.group === query.group) &&
      (query.version === undefined || r.version === query.version) &&
      names(r).includes(query.type),
  );
}

interface ResourceList {
  resources: { name: string; singularName?: string; kind: string; namespaced: boolean; shortNames?: string[] }[];
}

function served(group: string, version: string, list: ResourceList): ServedResource[] {
  return list.resources
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({
      group,
      version,
      kind: r.kind,
      plural: r.name,
      singular: r.singularName || r.kind.toLowerCase(),
      shortNames: r.shortNames ?? [],
      namespaced: r.namespaced,
    }));
}

async function listAt(client: KubeClient, group: string, version: string): Promise<ServedResource[]> {
  const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  try {
    return served(group, version, await client.request<ResourceList>('GET', path));
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

/**
 * Every group's resources at its preferred version, core first, and the group versions ("group/version: why") whose
 * discovery failed: an aggregated API whose server is down (metrics.k8s.io without its metrics-server) is common, and
 * must not stop a look at any other type. The core group failing fails it all.
 */
export async function preferredResources(
  client: KubeClient,
): Promise<{ resources: ServedResource[]; undiscovered: string[] }> {
  const groups = await client.request<{ groups: { name: string; preferredVersion: { version: string } }[] }>(
    'GET',
    '/apis',
  );
  const undiscovered: string[] = [];
  const lists = await Promise.all([
    listAt(client, '', 'v1'),
    ...groups.groups.map(({ name, preferredVersion: { version } }) =>
      listAt(client, name, version).catch((err: unknown) => {
        undiscovered.push(`${name}/${version}: ${errorMessage(err)}`);
        return [];
      }),
    ),
  ]);
  return { resources: lists.flat(), undiscovered: undiscovered.sort() };
}

/** Resolves the argument through the server's discovery; throws UnknownResourceTypeError when nothing matches. */
export async function resolveResourceArg(client: KubeClient, argument: string): Promise<ServedResource> {
  const preferred = await preferredResources(client);
  for (const query of parseResourceArg(argument)) {
    // A version other than the preferred one is only in that group-version's own list.
    const candidates =
      query.version === undefined ? preferred.resources : await listAt(client, query.group ?? '', query.version);
    const found = matchResource(candidates, query);
    if (found) return found;
  }
  throw new UnknownResourceTypeError(argument, preferred.undiscovered);
}

/** The apiVersion of a served resource: "group/version", or the version alone for the core group. */
export function apiVersionOf(resource: Pick<ServedResource, 'group' | 'version'>): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}
