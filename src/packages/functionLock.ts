// A Function's entries in the package Lock (lock/), so the packages depending on it find it installed: its active
// revision once it has one (without dependencies: a Function's dependsOn is not read), or, while a built-in serves
// it, the Function itself. A failure to write the Lock is logged only: the runtime is unaffected.
import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import type { LockManager } from './lock/index.js';
import type { FunctionPackage, FunctionRevision } from './types.js';

export interface FunctionLockOptions {
  /** The Lock; none records nothing. */
  lock?: Pick<LockManager, 'record' | 'recordUnlessListed' | 'removeSelf'>;
  logger: Logger;
  /** The controller's name, as its log lines carry it. */
  controller: string;
}

/**
 * @example
 * const entries = new FunctionLock({ lock, logger, controller: 'packages/function.pkg.crossplane.io' });
 * await entries.recordRevisions(fn.metadata.name, current, others, signal);
 */
export class FunctionLock {
  constructor(private readonly options: FunctionLockOptions) {}

  /**
   * Lists the active revision in the Lock and removes the others, and the entry a built-in had; a failure is logged,
   * the runtime is unaffected.
   */
  async recordRevisions(
    functionName: string,
    current: FunctionRevision,
    others: FunctionRevision[],
    signal: AbortSignal,
  ): Promise<void> {
    const lock = this.options.lock;
    if (lock === undefined) return;
    try {
      // The entry it had while a built-in served it (recordBuiltin).
      await lock.removeSelf(functionName, signal, 'Function');
      // One revision per package, as upstream lists its one active revision: the current one once it is active, though
      // an older one still serves until the current one is healthy (upstream would have retired it at once).
      const active = current.spec.desiredState === 'Active';
      for (const r of [current, ...others]) {
        const listed = active ? r === current : r.spec.desiredState === 'Active';
        if (!listed) await lock.removeSelf(r.metadata.name, signal, 'Function');
      }
      if (active) {
        await lock.record({ name: current.metadata.name, type: 'Function', image: current.spec.image }, signal);
      }
    } catch (err) {
      this.options.logger.warn(
        { controller: this.options.controller, revision: current.metadata.name, err: errorMessage(err) },
        'cannot update the package Lock',
      );
    }
  }

  /**
   * A Function a built-in serves has no active revision, yet packages depending on it must find it installed: unless
   * the Lock lists its package already (a revision Crossplane installed, kept there until it is deleted), it is listed
   * under its own name (no revision is named so: theirs end in a digest) at its package's version, and leaves the Lock
   * when it runs as a package again or is deleted (lock/departures.ts). A failure is logged only.
   */
  async recordBuiltin(fn: FunctionPackage, signal: AbortSignal): Promise<void> {
    const image = fn.spec?.package ?? '';
    await this.options.lock
      ?.recordUnlessListed({ name: fn.metadata.name, type: 'Function', image }, signal)
      .catch((err: unknown) => {
        this.options.logger.warn(
          { controller: this.options.controller, function: fn.metadata.name, err: errorMessage(err) },
          'cannot update the package Lock',
        );
      });
  }
}
