import type { Logger } from 'pino';
import { dateOf, errorMessage, systemClock, type Clock } from '../base/index.js';
import {
  COMPOSITE_LABEL,
  DELETION_ATTEMPT_ANNOTATION,
  IN_USE_LABEL,
  findCondition,
  isBeingDeleted,
  setConditions,
  StepError,
  type Condition,
  type ReconciledObject,
} from '../controller/index.js';
import { addFinalizerPatch, removeFinalizerPatch, type EventSink } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { inUseMessage, sameObject, usageDetails, usedObjectOf } from './message.js';
import { refOf, type UsageObjects } from './objects.js';
import { resolveSelector, type UsageSide } from './selector.js';
import {
  IN_USE_MESSAGE_ANNOTATION,
  USAGE_DETAILS_ANNOTATION,
  USAGE_FINALIZER,
  type Usage,
  type UsedObject,
} from './types.js';

export interface UsageTiming {
  /** How often a configured Usage looks again at the objects it names (they are not watched). */
  pollIntervalMs: number;
  /** How often a composed Usage being deleted looks for its user to be gone. */
  waitIntervalMs: number;
}

export interface UsageReconcilerOptions {
  objects: UsageObjects;
  /** The Usage or ClusterUsage of a queue key, from the informer caches. */
  find: (key: string) => Usage | undefined;
  /** Every Usage and ClusterUsage in the caches. */
  all: () => Usage[];
  events: EventSink;
  logger: Logger;
  timing: UsageTiming;
  /** For the Ready condition's lastTransitionTime; the system clock by default. */
  clock?: Pick<Clock, 'now'>;
}

/** Runs one step of a Usage's reconcile; any failure is a StepError, a Warning event with `reason` on the Usage. */
async function step<T>(reason: string, message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new StepError(reason, message, { cause: err });
  }
}

/**
 * Reconciles one Usage or ClusterUsage as Crossplane's usage controller does (internal/controller/protection/usage):
 * resolves selectors into `resourceRef`s, adds its finalizer and details annotation, labels the used object
 * `crossplane.io/in-use: "true"` (with the refusal message compositor's admission policy returns), and makes the
 * user the Usage's owner. Being deleted, a composed Usage with a user waits for the user to be gone; then the label
 * is removed when no other Usage names the object, a recorded deletion attempt is replayed with `replayDeletion`,
 * and the finalizer goes.
 */
export class UsageReconciler {
  constructor(private readonly options: UsageReconcilerOptions) {}

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const usage = this.options.find(key);
    if (!usage) return {};
    try {
      return isBeingDeleted(usage) ? await this.release(usage, signal) : await this.protect(usage, signal);
    } catch (err) {
      if (err instanceof StepError) {
        this.options.events.event(usage, { type: 'Warning', reason: err.reason, message: err.message });
      }
      throw err;
    }
  }

  private async protect(usage: Usage, signal: AbortSignal): Promise<ReconcileResult> {
    const { objects, timing } = this.options;
    // A resolved selector is written to the Usage; its watch event brings it back here with the name.
    if (await this.resolve(usage, signal)) return {};
    let changed = await this.configure(usage, signal);
    const target = await this.usedObject(usage);
    if (!target) throw new Error('the used resource has no name after resolving its selector');
    const used = await step('GetUsedResource', 'cannot get used', async () => {
      const found = await objects.get(target, signal);
      if (!found) throw new Error(`${target.kind} "${target.name}" not found`);
      return found;
    });
    changed = (await this.markInUse(used, await this.usagesOf(target), signal)) || changed;
    changed = (await this.ownByUser(usage, signal)) || changed;
    changed = (await this.markAvailable(usage, signal)) || changed;
    if (changed) {
      this.options.events.event(usage, {
        type: 'Normal',
        reason: 'UsageConfigured',
        message: 'Usage configured successfully.',
      });
    }
    return { requeueAfterMs: timing.pollIntervalMs };
  }

  /** Resolves the selectors still without a name; true when the Usage was written. */
  private async resolve(usage: Usage, signal: AbortSignal): Promise<boolean> {
    const sides = (['of', 'by'] as const).filter((side) => needsResolving(usage, side));
    if (sides.length === 0) return false;
    const spec: Record<string, unknown> = {};
    for (const side of sides) {
      const ref = await step('ResolveSelectors', 'cannot resolve selectors', () =>
        resolveSelector(this.options.objects, usage, side, signal),
      );
      spec[side] = { resourceRef: ref };
    }
    await this.options.objects.mergePatch(refOf(usage), { spec }, { signal });
    return true;
  }

  /** The finalizer and the details annotation; true when the Usage was written. */
  private async configure(usage: Usage, signal: AbortSignal): Promise<boolean> {
    const { objects } = this.options;
    let changed = false;
    const patch = addFinalizerPatch(usage.metadata.finalizers, USAGE_FINALIZER, usage.metadata.resourceVersion);
    if (patch) {
      await step('AddFinalizer', 'cannot add finalizer', () => objects.jsonPatch(refOf(usage), patch, signal));
      changed = true;
    }
    const details = usageDetails(usage);
    if (usage.metadata.annotations?.[USAGE_DETAILS_ANNOTATION] !== details) {
      await step('AddDetailsToUsage', 'cannot update usage resource with details annotation', () =>
        objects.mergePatch(
          refOf(usage),
          { metadata: { annotations: { [USAGE_DETAILS_ANNOTATION]: details } } },
          { signal },
        ),
      );
      changed = true;
    }
    return changed;
  }

  /** The in-use label and the refusal message naming `usages`; true when the used object was written. */
  private async markInUse(used: ReconciledObject, usages: readonly Usage[], signal: AbortSignal): Promise<boolean> {
    const message = inUseMessage(usages);
    const { labels = {}, annotations = {} } = used.metadata;
    if (labels[IN_USE_LABEL] === 'true' && annotations[IN_USE_MESSAGE_ANNOTATION] === message) return false;
    const patch = {
      metadata: { labels: { [IN_USE_LABEL]: 'true' }, annotations: { [IN_USE_MESSAGE_ANNOTATION]: message } },
    };
    await step('AddInUseLabel', 'cannot add in use label to the used resource', () =>
      this.options.objects.mergePatch(refOf(used), patch, { signal }),
    );
    return true;
  }

  /** The user (`by`) among the Usage's owners, so deleting the user deletes the Usage; true when written. */
  private async ownByUser(usage: Usage, signal: AbortSignal): Promise<boolean> {
    const user = await this.user(usage, signal);
    if (!user) return false;
    const owners = usage.metadata.ownerReferences ?? [];
    if (owners.some((o) => o.uid === user.metadata.uid)) return false;
    const owner = { apiVersion: user.apiVersion, kind: user.kind, name: user.metadata.name, uid: user.metadata.uid };
    const ownerReferences = [...owners, owner];
    await step('AddOwnerRefToUsage', 'cannot update usage resource with owner ref', () =>
      this.options.objects.mergePatch(
        refOf(usage),
        { metadata: { ownerReferences, resourceVersion: usage.metadata.resourceVersion } },
        { signal },
      ),
    );
    return true;
  }

  /** Ready True Available, as Crossplane's xpv1.Available(); true when the status was written. */
  private async markAvailable(usage: Usage, signal: AbortSignal): Promise<boolean> {
    const ready = findCondition(usage, 'Ready');
    const generation = usage.metadata.generation;
    if (ready?.status === 'True' && ready.reason === 'Available' && ready.observedGeneration === generation) {
      return false;
    }
    const available: Condition = {
      type: 'Ready',
      status: 'True',
      reason: 'Available',
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
    const now = (): Date => dateOf(this.options.clock ?? systemClock);
    const conditions = setConditions(usage.status?.conditions, [available], { now, precision: 'seconds' });
    await this.options.objects.mergePatch(refOf(usage), { status: { conditions } }, { status: true, signal });
    return true;
  }

  private async release(usage: Usage, signal: AbortSignal): Promise<ReconcileResult> {
    const { objects, timing } = this.options;
    if (await this.userRemains(usage, signal)) return { requeueAfterMs: timing.waitIntervalMs };
    const target = await this.usedObject(usage);
    const used = target && (await step('GetUsedResource', 'cannot get used', () => objects.get(target, signal)));
    if (target && used) await this.unmark(usage, target, used, signal);
    const patch = removeFinalizerPatch(usage.metadata.finalizers, USAGE_FINALIZER);
    if (patch) {
      await step('RemoveFinalizer', 'cannot remove finalizer', () => objects.jsonPatch(refOf(usage), patch, signal));
    }
    if (target && used) await this.replayDeletion(usage, target, used, signal);
    return {};
  }

  /**
   * A Usage composed beside its user goes away with the XR; it must outlive the user, or nothing would order their
   * deletion (Crossplane's approximation: any composed Usage with a user waits). True while the user exists.
   */
  private async userRemains(usage: Usage, signal: AbortSignal): Promise<boolean> {
    const by = usage.spec.by;
    if (!by || !usage.metadata.labels?.[COMPOSITE_LABEL]) return false;
    if (!(await this.user(usage, signal, { mustExist: false }))) return false;
    const kind = by.kind ?? '';
    const name = by.resourceRef?.name ?? '';
    const message = `Waiting for the using resource (which is a "${kind}" named "${name}") to be deleted.`;
    this.options.events.event(usage, { type: 'Normal', reason: 'WaitingUsingDeleted', message });
    return true;
  }

  /** Removes the label once no other Usage names the object, or names the remaining ones in the message. */
  private async unmark(usage: Usage, target: UsedObject, used: ReconciledObject, signal: AbortSignal): Promise<void> {
    const cached = (await this.usagesOf(target)).filter((u) => u.metadata.uid !== usage.metadata.uid);
    const others = await this.stillThere(cached, signal);
    if (others.length > 0) {
      await this.markInUse(used, others, signal);
      return;
    }
    const { labels = {}, annotations = {} } = used.metadata;
    if (!(IN_USE_LABEL in labels) && !(IN_USE_MESSAGE_ANNOTATION in annotations)) return;
    const patch = {
      metadata: { labels: { [IN_USE_LABEL]: null }, annotations: { [IN_USE_MESSAGE_ANNOTATION]: null } },
    };
    await step('RemoveInUseLabel', 'cannot remove in use label from the used resource', () =>
      this.options.objects.mergePatch(target, patch, { signal }),
    );
  }

  /** With `replayDeletion`, deletes the used object again with the policy of the refused attempt, if one was made. */
  private async replayDeletion(usage: Usage, target: UsedObject, used: ReconciledObject, signal: AbortSignal) {
    const policy = used.metadata.annotations?.[DELETION_ATTEMPT_ANNOTATION];
    if (usage.spec.replayDeletion !== true || policy === undefined) return;
    const { logger, events } = this.options;
    logger.info({ used: target, policy }, 'replaying deletion of the used resource');
    try {
      await this.options.objects.delete(target, policy, signal);
    } catch (err) {
      // Another Usage may still name it: the deleter that was refused retries as it would have anyway.
      events.event(usage, { type: 'Warning', reason: 'ReplayDeletion', message: errorMessage(err) });
    }
  }

  /** The object a Usage names, once resolved; its kind's scope read from discovery. */
  private async usedObject(usage: Usage): Promise<UsedObject | undefined> {
    const { apiVersion, kind } = usage.spec.of;
    if (!apiVersion || !kind) return undefined;
    return usedObjectOf(usage, await this.options.objects.namespaced(apiVersion, kind));
  }

  /**
   * The cached Usages the API server still has. A Usage released a moment ago is gone from the server before its
   * deletion reaches the cache: counted as another Usage, it would make the last one to go put the label back
   * naming it, and the used object could never be deleted again. Usually none or one to ask about.
   */
  private async stillThere(usages: readonly Usage[], signal: AbortSignal): Promise<Usage[]> {
    const found = await Promise.all(
      usages.map(async (u) => {
        const live = await step('GetUsage', 'cannot get usage', () => this.options.objects.get(refOf(u), signal));
        return live?.metadata.uid === u.metadata.uid ? u : undefined;
      }),
    );
    return found.filter((u): u is Usage => u !== undefined);
  }

  /** Every Usage and ClusterUsage in the caches naming the object. */
  private async usagesOf(target: UsedObject): Promise<Usage[]> {
    const naming: Usage[] = [];
    for (const usage of this.options.all()) {
      const named = await this.usedObject(usage).catch(() => undefined);
      if (named && sameObject(named, target)) naming.push(usage);
    }
    return naming;
  }

  /** The user (`by`), in the Usage's namespace; a missing user fails unless `mustExist` is false. */
  private async user(
    usage: Usage,
    signal: AbortSignal,
    { mustExist } = { mustExist: true },
  ): Promise<ReconciledObject | undefined> {
    const by = usage.spec.by;
    if (!by?.apiVersion || !by.kind || !by.resourceRef?.name) return undefined;
    const { apiVersion, kind } = by;
    const namespace = (await this.options.objects.namespaced(apiVersion, kind)) ? usage.metadata.namespace : undefined;
    const ref = { apiVersion, kind, name: by.resourceRef.name, ...(namespace ? { namespace } : {}) };
    return step('GetUsingResource', 'cannot get using', async () => {
      const found = await this.options.objects.get(ref, signal);
      if (!found && mustExist) throw new Error(`${kind} "${ref.name}" not found`);
      return found;
    });
  }
}

function needsResolving(usage: Usage, side: UsageSide): boolean {
  const resource = usage.spec[side];
  return resource !== undefined && !resource.resourceRef?.name;
}
