// crank's --function-credentials (crossplane/cli cmd/crossplane/render): Secrets read from files stand in for the
// cluster's, for pipeline steps whose credentials name a Secret.
import type { JsonObject } from '../functions/index.js';

type SecretGetter = (namespace: string, name: string) => Promise<Record<string, string> | undefined>;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * A Secret's data by namespace and name, base64 as `data` holds it; `stringData` is encoded and wins, as the API
 * server merges it on write. Objects of other kinds are ignored.
 */
export function secretGetter(objects: readonly JsonObject[]): SecretGetter {
  const secrets = new Map<string, Record<string, string>>();
  for (const object of objects) {
    if (str(object.apiVersion) !== 'v1' || str(object.kind) !== 'Secret') continue;
    const metadata = (object.metadata ?? {}) as JsonObject;
    const data = { ...((object.data ?? {}) as Record<string, string>) };
    for (const [key, value] of Object.entries((object.stringData ?? {}) as Record<string, string>)) {
      data[key] = Buffer.from(value).toString('base64');
    }
    secrets.set(`${str(metadata.namespace)}/${str(metadata.name)}`, data);
  }
  return (namespace, name) => Promise.resolve(secrets.get(`${namespace}/${name}`));
}
