// Runs a package kind's runtime hooks (runtime.ts) for one revision, as Crossplane's package runtime controller does
// (internal/controller/pkg/runtime/reconciler.go), within the revision controller's pass: pre before the revision's
// objects are established (so webhooks point at its Service), post once they are, its RuntimeHealthy written with
// RevisionHealthy, and deactivate for an inactive revision. A kind without hooks (a Configuration) runs nothing.
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import type { KubeClient } from '../../kube/index.js';
import { health } from '../conditions.js';
import type { Condition } from '../types.js';
import type { PackageKindSpec } from './kind.js';
import { ReportedError } from './reportedError.js';
import type { PreparedRuntime, RevisionRuntime, RuntimeImage } from './runtime.js';
import { revisionStatusTarget, writeStatus } from './status.js';
import type { ConfigurationRevision } from './types.js';

/** Upstream's runtime controller messages (internal/controller/pkg/runtime/reconciler.go). */
const MESSAGE = {
  pre: 'pre establish runtime hook failed for package',
  post: 'post establish runtime hook failed for package',
  waiting: 'Package revision is not healthy yet',
  configured: 'Successfully configured package revision',
} as const;

export interface RuntimeHooksOptions {
  /** The kind's hooks; without them no runtime runs. */
  runtime?: RevisionRuntime;
  client: KubeClient;
  clock?: Clock;
  kind: PackageKindSpec;
  logger: Logger;
  /** Records an event on the revision, under the reason the revision controller gives a package's sync. */
  event: (rev: ConfigurationRevision, type: 'Normal' | 'Warning', message: string) => void;
}

/**
 * @example
 * const hooks = new RuntimeHooks({ runtime, client, kind, logger, event });
 * const prepared = await hooks.pre(rev, signal); // before establishing
 * const runtimeHealthy = await hooks.post(rev, signal, image); // RuntimeHealthy, or undefined without a runtime
 */
export class RuntimeHooks {
  constructor(private readonly options: RuntimeHooksOptions) {}

  /** The runtime's pre hook for an active revision; a failure is its RuntimeHealthy, retried with backoff. */
  async pre(rev: ConfigurationRevision, signal: AbortSignal): Promise<PreparedRuntime | undefined> {
    const runtime = this.options.runtime;
    if (runtime === undefined || rev.spec.desiredState !== 'Active') return undefined;
    try {
      return await runtime.pre(rev, signal);
    } catch (err) {
      const message = `${MESSAGE.pre}: ${errorMessage(err, { cause: true })}`;
      await this.fail(rev, message, signal);
      throw new ReportedError(message, { cause: err });
    }
  }

  /**
   * The runtime's post hook once the revision's objects are established: RuntimeHealthy True, or False while the
   * Deployment is not available (upstream words that as a failed hook too). A failed write is retried with backoff.
   */
  async post(
    rev: ConfigurationRevision,
    signal: AbortSignal,
    image: RuntimeImage | undefined,
  ): Promise<Condition | undefined> {
    const runtime = this.options.runtime;
    if (runtime === undefined || rev.spec.desiredState !== 'Active') return undefined;
    let result: Awaited<ReturnType<RevisionRuntime['post']>>;
    try {
      result = await runtime.post(rev, signal, image);
    } catch (err) {
      const message = `${MESSAGE.post}: ${errorMessage(err, { cause: true })}`;
      await this.fail(rev, message, signal);
      throw new ReportedError(message, { cause: err });
    }
    const previous = rev.status?.conditions?.find((c) => c.type === 'RuntimeHealthy');
    if (result.healthy === true) {
      if (previous?.status !== 'True') this.options.event(rev, 'Normal', MESSAGE.configured);
      return health('RuntimeHealthy', true);
    }
    const message = `${MESSAGE.post}: ${result.message ?? 'unknown'}`;
    if (previous?.message !== message) this.options.event(rev, 'Warning', message);
    return health('RuntimeHealthy', false, message);
  }

  /** Stops an inactive revision's runtime. */
  async deactivate(rev: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    await this.options.runtime?.deactivate(rev, signal);
  }

  /**
   * What an active revision that is not healthy says of its runtime: as upstream's runtime controller, which runs
   * nothing for such a revision. Nothing without a runtime.
   */
  whileUnhealthy(rev: ConfigurationRevision): Condition[] {
    if (this.options.runtime === undefined || rev.spec.desiredState !== 'Active') return [];
    return [health('RuntimeHealthy', false, MESSAGE.waiting)];
  }

  /** RuntimeHealthy False with why, and a Warning event when that is new. */
  private async fail(rev: ConfigurationRevision, message: string, signal: AbortSignal): Promise<void> {
    const previous = rev.status?.conditions?.find((c) => c.type === 'RuntimeHealthy');
    if (previous?.message !== message) this.options.event(rev, 'Warning', message);
    await writeStatus(
      this.options,
      revisionStatusTarget(this.options.kind, rev),
      { conditions: [health('RuntimeHealthy', false, message)] },
      signal,
    ).catch((err: unknown) => {
      this.options.logger.debug(
        { revision: rev.metadata.name, err: errorMessage(err) },
        'cannot update package revision status',
      );
    });
  }
}
