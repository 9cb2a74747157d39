// The distribution spec's tag listing (`GET /v2/<name>/tags/list`), which Crossplane's resolver reads to choose a
// dependency's version. Registries page long lists with a `Link: <…>; rel="next"` header, which is followed as
// go-containerregistry's remote.List follows it, up to a bound so a registry that loops cannot hold a pass forever.
import { readLimited } from './http.js';
import type { RegistrySession } from './session.js';

/** The most pages read from one listing. */
const MAX_PAGES = 100;
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** Every tag of the session's repository, in the registry's order. */
export async function listTags(session: RegistrySession, what: string, signal?: AbortSignal): Promise<string[]> {
  const tags: string[] = [];
  let path: string | undefined = 'tags/list';
  for (let page = 0; path !== undefined && page < MAX_PAGES; page++) {
    const response = await session.request(path, signal ? { signal } : {});
    const next = nextPage(response.headers.get('link'));
    const body = JSON.parse((await readLimited(response, MAX_PAGE_BYTES, `tags of ${what}`)).toString('utf8')) as {
      tags?: unknown;
    };
    if (Array.isArray(body.tags)) tags.push(...body.tags.filter((t): t is string => typeof t === 'string'));
    path = next;
  }
  return tags;
}

/** The next page's path under `/v2/<name>/` from a Link header; undefined on the last page. */
export function nextPage(link: string | null): string | undefined {
  const match = link?.match(/<([^>]+)>\s*;\s*rel="?next"?/);
  if (!match?.[1]) return undefined;
  const url = new URL(match[1], 'http://registry.invalid');
  const at = url.pathname.indexOf('/tags/list');
  return at < 0 ? undefined : `tags/list${url.search}`;
}
