// Builds xpkg images in memory, as `crossplane xpkg build` lays them out: package.yaml in a gzipped tar layer that
// the manifest annotates `io.crossplane.xpkg: base`. Shared by the unit tests' fake registry and the integration
// tests, which write the same images as an OCI image layout and push it to a real registry.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const OCI_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip';
const DOCKER_LAYER = 'application/vnd.docker.image.rootfs.diff.tar.gzip';

export interface Blob {
  digest: string;
  bytes: Buffer;
  mediaType: string;
}

export interface LayerSpec {
  files: Record<string, string | Buffer>;
  annotations?: Record<string, string>;
}

export interface BuiltManifest {
  digest: string;
  mediaType: string;
  bytes: Buffer;
  /** The blobs the manifest references (config and layers), or the child manifests of an index. */
  blobs: Blob[];
  children: BuiltManifest[];
}

export function digestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A tar archive of the files, in the order given. */
export async function tarOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  for (const [name, content] of Object.entries(files)) archive.entry({ name, mode: 0o644 }, content);
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** An image with the given layers; `docker` gives Docker v2 media types instead of OCI's. */
export async function buildImage(
  layers: readonly LayerSpec[],
  options: { docker?: boolean } = {},
): Promise<BuiltManifest> {
  const layerBlobs: Blob[] = [];
  for (const layer of layers) {
    const bytes = gzipSync(await tarOf(layer.files));
    layerBlobs.push({ digest: digestOf(bytes), bytes, mediaType: options.docker === true ? DOCKER_LAYER : OCI_LAYER });
  }
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: [] },
      config: {},
    }),
  );
  const configBlob: Blob = {
    digest: digestOf(config),
    bytes: config,
    mediaType:
      options.docker === true
        ? 'application/vnd.docker.container.image.v1+json'
        : 'application/vnd.oci.image.config.v1+json',
  };
  const mediaType = options.docker === true ? DOCKER_MANIFEST : OCI_MANIFEST;
  const manifest = {
    schemaVersion: 2,
    mediaType,
    config: { mediaType: configBlob.mediaType, digest: configBlob.digest, size: config.length },
    layers: layerBlobs.map((blob, i) => ({
      mediaType: blob.mediaType,
      digest: blob.digest,
      size: blob.bytes.length,
      ...(layers[i]?.annotations ? { annotations: layers[i].annotations } : {}),
    })),
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  return { digest: digestOf(bytes), mediaType, bytes, blobs: [configBlob, ...layerBlobs], children: [] };
}

/** An OCI image index over images, each for a platform such as `linux/arm64`. */
export function buildIndex(children: readonly { image: BuiltManifest; platform: string }[]): BuiltManifest {
  const index = {
    schemaVersion: 2,
    mediaType: OCI_INDEX,
    manifests: children.map(({ image, platform }) => {
      const [os, architecture] = platform.split('/');
      return {
        mediaType: image.mediaType,
        digest: image.digest,
        size: image.bytes.length,
        platform: { os, architecture },
      };
    }),
  };
  const bytes = Buffer.from(JSON.stringify(index));
  return { digest: digestOf(bytes), mediaType: OCI_INDEX, bytes, blobs: [], children: children.map((c) => c.image) };
}

/** An xpkg: one layer holding package.yaml, annotated as Crossplane's base layer. */
export function buildPackage(stream: string, options: { docker?: boolean } = {}): Promise<BuiltManifest> {
  return buildImage([{ files: { 'package.yaml': stream }, annotations: { 'io.crossplane.xpkg': 'base' } }], options);
}
