// The manifests a package image may have: OCI image manifests and indexes, and their Docker v2 equivalents (schema
// 2 manifests and manifest lists). Schema 1 is refused, as go-containerregistry does.
import { UnsupportedMediaTypeError } from './errors.js';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
const SCHEMA1 = [
  'application/vnd.docker.distribution.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v1+prettyjws',
];

const SHA256 = /^sha256:[a-f0-9]{64}$/;

/** What the client asks for: every manifest type it reads. */
export const ACCEPTED_MANIFESTS = [OCI_INDEX, DOCKER_MANIFEST_LIST, OCI_MANIFEST, DOCKER_MANIFEST] as const;

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: Platform;
}

export interface ImageManifest {
  kind: 'image';
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  kind: 'index';
  mediaType: string;
  manifests: Descriptor[];
}

/** Go-containerregistry's default platform, which Crossplane's fetcher does not change. */
export const DEFAULT_PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

/** Reads a manifest or index; the media type is the body's own `mediaType`, else the response's Content-Type. */
export function parseManifest(bytes: Buffer, contentType: string | null, where: string): ImageManifest | ImageIndex {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: ${(err as Error).message}`);
  }
  const mediaType = mediaTypeOf(body, contentType);
  if (SCHEMA1.includes(mediaType) || body.schemaVersion === 1) {
    throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: unsupported MediaType: "${mediaType}"`);
  }
  if (mediaType === OCI_INDEX || mediaType === DOCKER_MANIFEST_LIST) {
    return { kind: 'index', mediaType, manifests: descriptors(body.manifests, where) };
  }
  if (mediaType === OCI_MANIFEST || mediaType === DOCKER_MANIFEST) {
    const [config] = descriptors([body.config], where);
    if (config === undefined) throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: no config`);
    return {
      kind: 'image',
      mediaType,
      config,
      layers: descriptors(body.layers, where),
      ...(isStringMap(body.annotations) ? { annotations: body.annotations } : {}),
    };
  }
  throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: unsupported MediaType: "${mediaType}"`);
}

function mediaTypeOf(body: Record<string, unknown>, contentType: string | null): string {
  if (typeof body.mediaType === 'string') return body.mediaType;
  const header = contentType?.split(';')[0]?.trim();
  return header !== undefined && header !== '' ? header : inferMediaType(body);
}

// An OCI manifest may omit mediaType; its shape then says what it is.
function inferMediaType(body: Record<string, unknown>): string {
  if (Array.isArray(body.manifests)) return OCI_INDEX;
  if (Array.isArray(body.layers)) return OCI_MANIFEST;
  return '';
}

function descriptors(value: unknown, where: string): Descriptor[] {
  if (!Array.isArray(value))
    throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: missing descriptors`);
  return value.map((entry: unknown) => toDescriptor(entry, where));
}

function toDescriptor(entry: unknown, where: string): Descriptor {
  {
    const d = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof d.digest !== 'string' || typeof d.size !== 'number' || !Number.isSafeInteger(d.size) || d.size < 0) {
      throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: a descriptor lacks a digest or size`);
    }
    if (!SHA256.test(d.digest)) {
      throw new UnsupportedMediaTypeError(`cannot read manifest of ${where}: digest "${d.digest}" is not sha256`);
    }
    const descriptor: Descriptor = {
      mediaType: typeof d.mediaType === 'string' ? d.mediaType : '',
      digest: d.digest,
      size: d.size,
    };
    if (isStringMap(d.annotations)) descriptor.annotations = d.annotations;
    const platform = platformOf(d.platform);
    if (platform !== undefined) descriptor.platform = platform;
    return descriptor;
  }
}

function platformOf(value: unknown): Platform | undefined {
  const platform = value as Record<string, unknown> | undefined;
  if (typeof platform?.os !== 'string' || typeof platform.architecture !== 'string') return undefined;
  const result: Platform = { os: platform.os, architecture: platform.architecture };
  if (typeof platform.variant === 'string') result.variant = platform.variant;
  return result;
}

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}

/**
 * The index child for a platform: the first whose os and architecture match (and variant, when one is asked
 * for), as go-containerregistry's `remote.Image` picks with its default linux/amd64.
 */
export function selectPlatform(index: ImageIndex, platform: Platform, where: string): Descriptor {
  const child = index.manifests.find(
    (d) =>
      d.platform?.os === platform.os &&
      d.platform.architecture === platform.architecture &&
      (platform.variant === undefined || d.platform.variant === platform.variant),
  );
  if (child === undefined) {
    const wanted = [platform.os, platform.architecture, platform.variant].filter((p) => p !== undefined).join('/');
    throw new UnsupportedMediaTypeError(`no child with platform ${wanted} in index ${where}`);
  }
  return child;
}
