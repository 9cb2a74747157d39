// meta.tag, Crossplane's digest of a function request, computed only when something reads it. Digesting means
// canonicalising the whole request (the XR and every observed and desired resource) and hashing it; measured over a
// 1,000-XR burst it was an eighth of everything compositor allocated, for built-in functions that only echo the tag
// into a response nobody reads. A function reached over gRPC reads it when the request is encoded, so what it
// receives is unchanged.
import { digest } from './hash.js';
import type { RequestMeta, ResponseMeta, RunFunctionRequest } from './types.js';

/**
 * Sets request.meta with the given capabilities and a tag digesting the request as it is now, without its meta, as
 * Crossplane computes it. The digest is taken on first read, so the request must not change before then: the
 * pipeline builds a new request per step and hands it straight to the function.
 */
export function setLazyTag(request: RunFunctionRequest, capabilities: RequestMeta['capabilities']): void {
  const meta: RequestMeta = { capabilities };
  let tag: string | undefined;
  Object.defineProperty(meta, 'tag', {
    enumerable: true,
    get(): string {
      if (tag === undefined) {
        const { meta: _ignored, ...rest } = request;
        tag = digest(rest);
      }
      return tag;
    },
  });
  request.meta = meta;
}

/** A response meta echoing the request's tag (as the SDK's response.To does), read through when read. */
export function echoTag(request: RunFunctionRequest, ttlMs: number): ResponseMeta {
  const meta: ResponseMeta = { ttlMs };
  Object.defineProperty(meta, 'tag', {
    enumerable: true,
    get: () => request.meta?.tag ?? '',
  });
  return meta;
}
