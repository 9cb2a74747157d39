/**
 * A Kubernetes kind as objects name it: `apiVersion` ("group/version", or "v1" for the core group) and `kind`.
 * Kinds travel as this value; `kindKey` is only for filing them in maps and naming them in logs, and nothing parses
 * a key back into a kind.
 *
 * @example kindKey({ apiVersion: 'example.org/v1', kind: 'XBucket' }) // "example.org/v1/XBucket"
 */
export interface ApiKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** The kind of an object or reference, without its other fields. */
export function kindOf(of: ApiKind): ApiKind {
  return { apiVersion: of.apiVersion, kind: of.kind };
}

/** The key a kind is filed under: "apiVersion/kind". */
export function kindKey(of: ApiKind): string {
  return `${of.apiVersion}/${of.kind}`;
}

/** The distinct kinds among `of`, in first-seen order. */
export function distinctKinds(of: Iterable<ApiKind>): ApiKind[] {
  const kinds = new Map<string, ApiKind>();
  for (const item of of) {
    const key = kindKey(item);
    if (!kinds.has(key)) kinds.set(key, kindOf(item));
  }
  return [...kinds.values()];
}

/** The API group of an apiVersion: "" for the core group ("v1"). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
