// Fetches and parses a package as Crossplane's package client does (crossplane-runtime pkg/xpkg/client.go, Get):
// pull the image under the pull policy, find package.yaml, parse it. Checking the result against a package kind
// and a Crossplane version is the caller's next step (validatePackage, lintPackage, checkCrossplaneVersion).
import { formatReference, packageSource, type Puller, type PullOptions } from '../oci/index.js';
import { PackageError } from './errors.js';
import { DEFAULT_MAX_PACKAGE_BYTES, readPackageStream } from './layout.js';
import { parsePackage } from './parse.js';
import type { ParsedPackage } from './types.js';

export interface FetchedPackage extends ParsedPackage {
  /** The package source without tag or digest, e.g. `xpkg.crossplane.io/crossplane-contrib/provider-nop`. */
  source: string;
  /** The tag or digest the reference named. */
  version: string;
  /** The digest the reference resolved to (an index's when it named an index). */
  digest: string;
  /** `source@digest`: the reference pinned to what was pulled. */
  resolvedRef: string;
}

export interface PackageClientOptions {
  puller: Puller;
  /** The most of package.yaml read; Crossplane's maxPackageSize (200 MiB) by default. */
  maxPackageBytes?: number;
}

export class PackageClient {
  constructor(private readonly options: PackageClientOptions) {}

  /** Fetches and parses a package; failures are the OCI client's PullError or this module's PackageError. */
  async get(ref: string, options: PullOptions = {}): Promise<FetchedPackage> {
    const image = await this.options.puller.pull(ref, options);
    const where = formatReference(image.reference);
    const stream = await withContext(`cannot extract package content from ${where}`, () =>
      readPackageStream(image, this.options.maxPackageBytes ?? DEFAULT_MAX_PACKAGE_BYTES),
    );
    const parsed = await withContext(`cannot parse package ${where}`, () => Promise.resolve(parsePackage(stream)));
    const source = packageSource(image.reference);
    return {
      ...parsed,
      source,
      version: image.reference.digest ?? image.reference.tag ?? '',
      digest: image.digest,
      resolvedRef: `${source}@${image.digest}`,
    };
  }
}

async function withContext<T>(context: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PackageError || (err instanceof Error && err.name === 'TooLargeError')) {
      err.message = `${context}: ${err.message}`;
    }
    throw err;
  }
}
