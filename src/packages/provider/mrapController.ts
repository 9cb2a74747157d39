// The ManagedResourceActivationPolicy controller, as Crossplane v2.3's (internal/controller/apiextensions/
// activationpolicy): every MRD whose name a policy's spec.activate matches is set Active with a merge patch of
// spec.state alone (activation.ts decides which); status.activated lists those it matched and could activate, sorted;
// Healthy is True, or Unknown with how many failed. An MRD's change re-queues the policies that match it. Nothing is
// ever deactivated.
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import {
  ControllerShell,
  RECONCILIATION_PAUSED_EVENT,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
} from '../../controller/index.js';
import { CONTENT_TYPE, getIfExists, type KubeObject } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import type { InformerLease } from '../../watch/index.js';
import { isPausedPackage, writeStatus, type StatusTarget } from '../configuration/index.js';
import type { Condition } from '../types.js';
import { matchesActivation, planActivation } from './activation.js';
import { policyBlocked, policyHealthy, policyUnhealthy } from './conditions.js';
import type { ManagedResourceDefinition } from './mrdCrd.js';
import { MRAP, MRAPS, MRD, MRDS } from './names.js';

export interface ManagedResourceActivationPolicy extends KubeObject {
  metadata: { name: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  spec: { activate: string[] };
  status?: { conditions?: Condition[]; activated?: string[] };
}

export interface MrapControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  clock?: Clock;
}

const REASON = { activate: 'ActivateManagedResourceDefinition' } as const;

export class MrapController implements Lifecycle {
  readonly name = 'packages/managedresourceactivationpolicy.apiextensions.crossplane.io';
  private readonly shell: ControllerShell;
  private readonly logger: Logger;
  /** The policies' shared cache, which maps an MRD's change to the policies matching it without a request. */
  private policies: InformerLease<ManagedResourceActivationPolicy> | undefined;

  constructor(private readonly options: MrapControllerOptions) {
    this.logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      watches: [
        watchKind({ kind: MRAP }),
        watchKind({ kind: MRD, keys: (event) => this.policiesMatching(event.object.metadata.name) }),
      ],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'managedresourceactivationpolicy', level: 'warn', causes: true },
    });
  }

  async start(signal?: AbortSignal): Promise<void> {
    this.policies = await this.options.informers.acquire(MRAP.apiVersion, MRAP.kind);
    await this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
    await this.policies?.release();
    this.policies = undefined;
  }

  /** The policies whose activate list matches an MRD's name (upstream's EnqueueActivationPolicyForManagedResourceDefinition). */
  private policiesMatching(mrd: string): string[] {
    return (this.policies?.informer.store.list() ?? [])
      .filter((p) => p.spec.activate.some((pattern) => matchesActivation(pattern, mrd)))
      .map((p) => p.metadata.name);
  }

  /** Reconciles one policy, read fresh. */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const policy = await getIfExists<ManagedResourceActivationPolicy>(this.options.client, `${MRAPS}/${name}`, signal);
    if (policy === undefined || policy.metadata.deletionTimestamp !== undefined) return {};
    // Paused: an event and nothing else, as upstream's (internal/controller/apiextensions/activationpolicy).
    if (isPausedPackage(policy)) {
      this.options.events.event({ ...MRAP, metadata: policy.metadata }, RECONCILIATION_PAUSED_EVENT);
      return {};
    }
    let mrds: ManagedResourceDefinition[];
    try {
      mrds = (await this.options.client.request<{ items: ManagedResourceDefinition[] }>('GET', MRDS, { signal })).items;
    } catch (err) {
      await this.status(policy, [policyBlocked('cannot list ManagedResourceDefinition')], undefined, signal).catch(
        () => undefined,
      );
      throw new Error('cannot list ManagedResourceDefinition', { cause: err });
    }
    const plan = planActivation(
      policy.spec.activate,
      mrds.map((m) => ({ name: m.metadata.name, state: m.spec.state })),
    );
    const failed = new Set<string>();
    for (const mrd of plan.activate) {
      const err = await this.activate(mrd, signal);
      if (err === undefined) {
        this.event(policy, 'Normal', 'Successfully activated ManagedResourceDefinition');
        continue;
      }
      failed.add(mrd);
      this.event(policy, 'Warning', `cannot activate ManagedResourceDefinition "${mrd}": ${errorMessage(err)}`);
    }
    const activated = plan.activated.filter((n) => !failed.has(n));
    const health =
      failed.size > 0
        ? policyUnhealthy(`failed to activate ${failed.size} of ${activated.length} ManagedResourceDefinitions`)
        : policyHealthy();
    await this.status(policy, [health], activated, signal);
    if (failed.size > 0) throw new Error(`cannot activate ${failed.size} ManagedResourceDefinitions`);
    return {};
  }

  /** Sets one MRD Active; the error, if any, for the caller to report. */
  private async activate(name: string, signal: AbortSignal): Promise<unknown> {
    try {
      await this.options.client.request('PATCH', `${MRDS}/${name}`, {
        body: { spec: { state: 'Active' } },
        contentType: CONTENT_TYPE.mergePatch,
        signal,
      });
      return undefined;
    } catch (err) {
      this.logger.debug({ mrd: name, err: errorMessage(err) }, 'cannot activate ManagedResourceDefinition');
      return err;
    }
  }

  private async status(
    policy: ManagedResourceActivationPolicy,
    conditions: Condition[],
    activated: string[] | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const target: StatusTarget = {
      path: `${MRAPS}/${policy.metadata.name}`,
      stored: policy.status,
    };
    // Upstream omits an empty list (omitempty): null removes a stored one with the merge patch.
    const emptied = (policy.status?.activated?.length ?? 0) > 0 ? { activated: null } : undefined;
    const fields = activated === undefined ? undefined : activated.length > 0 ? { activated } : emptied;
    await writeStatus(this.options, target, { conditions, ...(fields ? { fields } : {}) }, signal);
  }

  private event(policy: ManagedResourceActivationPolicy, type: 'Normal' | 'Warning', message: string): void {
    this.options.events.event({ ...MRAP, metadata: policy.metadata }, { type, reason: REASON.activate, message });
  }
}
