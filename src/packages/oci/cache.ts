// The package cache on disk: blobs (manifests, indexes, configs, layers) stored under their sha256 digest, as an
// OCI image layout stores them (`blobs/sha256/<hex>`). A blob is written to a temporary file while it is hashed
// and renamed into place only when its digest matches, so the cache never holds a partial or wrong blob; a blob
// is hashed again when read, so a damaged file is a miss (and is replaced by the next pull), never bad content.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DigestMismatchError } from './errors.js';
import { tooLarge } from './http.js';

const DIGEST = /^sha256:([a-f0-9]{64})$/;

export class BlobCache {
  constructor(private readonly dir: string) {}

  /** Where the blob lives (whether or not it is there yet). */
  path(digest: string): string {
    return join(this.dir, 'blobs', 'sha256', hexOf(digest));
  }

  /** The blob's bytes when it is cached and intact; undefined otherwise. */
  async read(digest: string): Promise<Buffer | undefined> {
    const bytes = await readFile(this.path(digest)).catch(() => undefined);
    if (bytes === undefined || sha256(bytes) !== digest) return undefined;
    return bytes;
  }

  /** Whether the blob is cached and intact: it is hashed as it is read, without holding it in memory. */
  async has(digest: string): Promise<boolean> {
    const path = this.path(digest);
    if ((await stat(path).catch(() => undefined)) === undefined) return false;
    const hash = createHash('sha256');
    try {
      for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    } catch {
      return false;
    }
    return `sha256:${hash.digest('hex')}` === digest;
  }

  /** Stores bytes already in memory under their digest, refusing bytes that do not hash to it. */
  async writeBytes(digest: string, bytes: Buffer, what: string): Promise<void> {
    await this.writeStream(digest, [bytes], { limit: Number.MAX_SAFE_INTEGER, what });
  }

  /** Streams a blob into the cache under a size limit, refusing it unless it hashes to `digest`. */
  async writeStream(
    digest: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: { limit: number; what: string },
  ): Promise<void> {
    const final = this.path(digest);
    await mkdir(join(final, '..'), { recursive: true });
    const temporary = `${final}.partial-${randomBytes(6).toString('hex')}`;
    const hash = createHash('sha256');
    const file = await open(temporary, 'w');
    let size = 0;
    try {
      for await (const chunk of chunks) {
        size += chunk.byteLength;
        if (size > options.limit) throw tooLarge(options.what, options.limit, `more than ${options.limit} bytes`);
        hash.update(chunk);
        await file.write(chunk);
      }
      await file.close();
      const actual = `sha256:${hash.digest('hex')}`;
      if (actual !== digest) {
        throw new DigestMismatchError(digest, actual, `${options.what} has digest ${actual}, not ${digest}`);
      }
      await rename(temporary, final);
    } catch (err) {
      await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw err;
    }
  }
}

export function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function hexOf(digest: string): string {
  const hex = DIGEST.exec(digest)?.[1];
  // Digests come from parsed references or from manifests checked here, so this guards the path, not the input.
  if (hex === undefined) throw new Error(`cannot use digest "${digest}" as a cache key: not sha256:<64 hex>`);
  return hex;
}
