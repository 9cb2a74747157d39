// A Function package's metadata (its meta.pkg.crossplane.io Function object), read through the OCI client with the
// revision's packagePullPolicy and packagePullSecrets, for the revision's status.capabilities: what Crossplane v2.3's
// revision reconciler copies (pkgmetav1 Function.GetCapabilities: a package that declares none is a composition
// function). Crossplane installs none of a Function package's objects (its FilteringEstablisher for FunctionRevisions
// lets no kind through: the xpkg spec says a Function's CRDs are not installed), so the input CRDs stay uninstalled
// here too. A read is remembered per revision and image, a failure for `retryMs`, so a registry that cannot be
// reached costs one bounded attempt per interval, not one per pass. What the ImageConfigs make of the image (the
// controller resolves it) is pulled: the rewritten reference, with their pull secret after the revision's own.
import { errorMessage, systemClock, type Clock } from '../base/index.js';
import type { KubeClient } from '../kube/index.js';
import { defaultCacheDir } from './configuration/packages.js';
import { pullOptions, type PullSpec } from './configuration/pull.js';
import type { ImageResolution } from './imageconfig/index.js';
import { Puller } from './oci/index.js';
import type { Condition, FunctionRevision } from './types.js';
import { PackageClient } from './xpkg/index.js';

/** What a package declares when its metadata names no capabilities (pkgmetav1.FunctionCapabilityComposition). */
export const DEFAULT_CAPABILITIES: readonly string[] = ['composition'];

/** compositor's condition on a FunctionRevision: whether its package's metadata could be read. Upstream has none. */
export const PACKAGE_METADATA = 'PackageMetadata';

export type MetadataResult = { capabilities: string[] } | { error: string };

export interface MetadataReaderOptions {
  client: KubeClient;
  packages: Pick<PackageClient, 'get'>;
  /** compositor's namespace: where packagePullSecrets are read. */
  namespace: string;
  /** How long a failed read is remembered before the next attempt. Default 1m. */
  retryMs?: number;
  /** The longest one read may take. Default 20s. */
  timeoutMs?: number;
  clock?: Clock;
}

export class MetadataReader {
  private readonly read = new Map<string, { result: MetadataResult; until: number }>();

  constructor(private readonly options: MetadataReaderOptions) {}

  /** The revision's capabilities, or why they could not be read; `image` is what the ImageConfigs made of it. */
  async capabilities(
    revision: FunctionRevision,
    signal: AbortSignal,
    image?: Pick<ImageResolution, 'resolvedRef' | 'pullSecret'>,
  ): Promise<MetadataResult> {
    const pulled = image ?? { resolvedRef: revision.spec.image };
    const key = `${revision.metadata.uid ?? revision.metadata.name}/${pulled.resolvedRef}/${pulled.pullSecret ?? ''}`;
    const clock = this.options.clock ?? systemClock;
    const known = this.read.get(key);
    if (known !== undefined && clock.now() < known.until) return known.result;
    const result = await this.fetch(revision, pulled, signal);
    const retry = 'error' in result || revision.spec.packagePullPolicy === 'Always';
    this.read.set(key, { result, until: retry ? clock.now() + (this.options.retryMs ?? 60_000) : Infinity });
    return result;
  }

  private async fetch(
    revision: FunctionRevision,
    image: Pick<ImageResolution, 'resolvedRef' | 'pullSecret'>,
    signal: AbortSignal,
  ): Promise<MetadataResult> {
    const timeoutMs = this.options.timeoutMs ?? 20_000;
    const timeout = new AbortController();
    const clock = this.options.clock ?? systemClock;
    const timer = clock.setTimer(() => {
      timeout.abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const bounded = AbortSignal.any([signal, timeout.signal]);
    try {
      const spec = revision.spec as PullSpec;
      const secrets = [...(spec.packagePullSecrets ?? [])];
      if (image.pullSecret !== undefined) secrets.push({ name: image.pullSecret });
      const options = await pullOptions(
        this.options.client,
        this.options.namespace,
        { ...spec, packagePullSecrets: secrets },
        bounded,
      );
      const pkg = await this.options.packages.get(image.resolvedRef, options);
      const meta = pkg.meta.find((m) => m.kind === 'Function');
      if (meta === undefined) return { error: 'package meta type is not Function' };
      const declared = (meta.spec as { capabilities?: unknown } | undefined)?.capabilities;
      return { capabilities: Array.isArray(declared) ? declared.map(String) : [...DEFAULT_CAPABILITIES] };
    } catch (err) {
      if (signal.aborted) throw err;
      return { error: errorMessage(err, { cause: true }) };
    } finally {
      timer.cancel();
    }
  }
}

/** The PackageMetadata condition of a read. */
export function metadataCondition(result: MetadataResult): Condition {
  if ('error' in result) {
    return {
      type: PACKAGE_METADATA,
      status: 'False',
      reason: 'MetadataUnavailable',
      message: `cannot read package metadata, capabilities unknown: ${result.error}`,
    };
  }
  return { type: PACKAGE_METADATA, status: 'True', reason: 'MetadataRead' };
}

/** A reader on its own OCI client, whose cache is --xpkg-cache-dir (shared with the Configuration controllers'). */
export function packageMetadataReader(
  options: Omit<MetadataReaderOptions, 'packages'> & { cacheDir?: string },
): MetadataReader {
  const { cacheDir, ...rest } = options;
  const puller = new Puller({ cacheDir: cacheDir ?? defaultCacheDir() });
  return new MetadataReader({ ...rest, packages: new PackageClient({ puller }) });
}
