// Where package.yaml lives in an xpkg image (crossplane-runtime pkg/xpkg/client.go, ExtractPackageYAML): in the
// layer annotated `io.crossplane.xpkg: base` when the manifest has one, else anywhere in the image's flattened
// filesystem (upper layers hide lower ones, whiteouts delete). The first tar entry whose base name is package.yaml
// is the stream. Layers may be gzip, zstd or plain tar, told apart by their first bytes as go-containerregistry does.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createZstdDecompress } from 'node:zlib';
import type { Transform } from 'node:stream';
import { extract, type Header } from 'tar-stream';
import { TooLargeError, type Descriptor, type PulledImage } from '../oci/index.js';
import { NotAPackageError } from './errors.js';

export const ANNOTATION_KEY = 'io.crossplane.xpkg';
export const PACKAGE_ANNOTATION = 'base';
export const STREAM_FILE = 'package.yaml';
/** Crossplane's maxPackageSize: the most of package.yaml it reads. */
export const DEFAULT_MAX_PACKAGE_BYTES = 200 * 1024 * 1024;

/** Reads package.yaml from a pulled image, downloading only the layers it needs. */
export async function readPackageStream(image: PulledImage, maxBytes = DEFAULT_MAX_PACKAGE_BYTES): Promise<string> {
  const base = image.manifest.layers.find((l) => l.annotations?.[ANNOTATION_KEY] === PACKAGE_ANNOTATION);
  if (base !== undefined) {
    const found = await scanLayer(await image.blob(base), { maxBytes, hidden: () => false });
    if (found?.content !== undefined) return found.content;
    throw new NotAPackageError(`${STREAM_FILE} not found in package`);
  }
  return flattened(image, image.manifest.layers, maxBytes);
}

// Top layer first; a path seen (or deleted) in an upper layer hides the same path below.
async function flattened(image: PulledImage, layers: readonly Descriptor[], maxBytes: number): Promise<string> {
  const seen = new Set<string>();
  const opaque: string[] = [];
  for (const layer of [...layers].reverse()) {
    const hidden = (path: string): boolean => seen.has(path) || opaque.some((dir) => path.startsWith(dir));
    const found = await scanLayer(await image.blob(layer), { maxBytes, hidden });
    if (found?.content !== undefined) return found.content;
    for (const path of found?.paths ?? []) seen.add(path);
    opaque.push(...(found?.opaque ?? []));
  }
  throw new NotAPackageError(`${STREAM_FILE} not found in package`);
}

const OPAQUE = '\0opaque';

interface LayerScan {
  content?: string;
  /** Paths the layer holds or deletes, to hide them in lower layers. */
  paths: string[];
  /** Directories whose lower contents the layer hides (`.wh..wh..opq`). */
  opaque: string[];
}

async function scanLayer(
  path: string,
  options: { maxBytes: number; hidden: (path: string) => boolean },
): Promise<LayerScan | undefined> {
  const scan: LayerScan = { paths: [], opaque: [] };
  const tar = extract();
  tar.on('entry', (header, stream, next) => {
    const name = normalize(header.name);
    const whiteout = whiteoutTarget(name);
    if (whiteout === OPAQUE) scan.opaque.push(`${posix.dirname(name)}/`);
    else if (whiteout !== undefined) scan.paths.push(whiteout);
    else scan.paths.push(name);
    if (scan.content !== undefined || !isStreamFile(header, name) || options.hidden(name)) {
      stream.on('end', () => {
        next();
      });
      stream.resume();
      return;
    }
    readEntry(stream, header, options.maxBytes).then(
      (content) => {
        scan.content = content;
        next();
      },
      (err: unknown) => {
        next(err as Error);
      },
    );
  });
  const decompress = await decompressorFor(path);
  await pipeline([createReadStream(path), ...(decompress ? [decompress] : []), tar]).catch((err: unknown) => {
    if (err instanceof TooLargeError) throw err;
    throw new NotAPackageError(`cannot read package contents: ${(err as Error).message}`, { cause: err });
  });
  return scan;
}

function isStreamFile(header: Header, name: string): boolean {
  return (header.type === 'file' || header.type === 'contiguous-file') && posix.basename(name) === STREAM_FILE;
}

async function readEntry(
  stream: AsyncIterable<unknown> & { resume(): unknown },
  header: Header,
  maxBytes: number,
): Promise<string> {
  const size = header.size;
  if (size > maxBytes) {
    stream.resume();
    throw new TooLargeError(maxBytes, `${STREAM_FILE} is ${size} bytes, over the limit of ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function normalize(name: string): string {
  return posix.normalize(`/${name}`).replace(/\/$/, '');
}

/** The path a whiteout entry deletes, OPAQUE for a directory's opaque marker, undefined for other entries. */
function whiteoutTarget(name: string): string | undefined {
  const base = posix.basename(name);
  if (base === '.wh..wh..opq') return OPAQUE;
  if (base.startsWith('.wh.')) return posix.join(posix.dirname(name), base.slice('.wh.'.length));
  return undefined;
}

async function decompressorFor(path: string): Promise<Transform | undefined> {
  const file = await open(path, 'r');
  const magic = Buffer.alloc(4);
  try {
    await file.read(magic, 0, 4, 0);
  } finally {
    await file.close();
  }
  if (magic[0] === 0x1f && magic[1] === 0x8b) return createGunzip();
  if (magic.equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))) return createZstdDecompress();
  return undefined;
}
