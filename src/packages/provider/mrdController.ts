// The ManagedResourceDefinition controller, as Crossplane v2.3's (internal/controller/apiextensions/managed): an
// Inactive MRD is Established False (InactiveManagedResource) and has no CRD; an Active one gets its CRD server-side
// applied (mrdCrd.ts) and is Established once the CRD is, looked at again every second until then. A failure to apply is a Warning event and Established False
// with upstream's message, retried with backoff. Nothing here deletes a CRD: an MRD going away leaves its CRD to the
// garbage collector, which deletes it only once neither the MRD nor its ProviderRevision owns it.
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import {
  ControllerShell,
  RECONCILIATION_PAUSED_EVENT,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
} from '../../controller/index.js';
import { getIfExists, serverSideApply, type KubeObject } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import { isPausedPackage, writeStatus, type StatusTarget } from '../configuration/index.js';
import type { Condition } from '../types.js';
import { blocked, established, inactive, pending } from './conditions.js';
import { crdOf, type ManagedResourceDefinition } from './mrdCrd.js';
import { CRDS, MRD, MRD_FIELD_MANAGER, MRDS } from './names.js';

export interface MrdControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  clock?: Clock;
}

const REASON = { apply: 'ApplyCustomResourceDefinition' } as const;

/** How soon an MRD whose CRD is not established yet looks again (the API server establishes one within a second). */
const PENDING_RECHECK_MS = 1_000;

interface StoredCrd extends KubeObject {
  metadata: { name: string; ownerReferences?: { kind: string; apiVersion: string; name: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/** A failure already reported on the MRD; the queue retries it with backoff. */
class ReportedError extends Error {
  override readonly name = 'ReportedError';
}

export class MrdController implements Lifecycle {
  readonly name = 'packages/managedresourcedefinition.apiextensions.crossplane.io';
  private readonly shell: ControllerShell;
  private readonly logger: Logger;

  constructor(private readonly options: MrdControllerOptions) {
    this.logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      // CRDs are not watched: caching every CRD of a cluster costs more than asking again while one is pending.
      watches: [watchKind({ kind: MRD })],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'managedresourcedefinition', level: 'warn', causes: true },
    });
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
  }

  /** Reconciles one MRD, read fresh. */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const mrd = await getIfExists<ManagedResourceDefinition>(this.options.client, `${MRDS}/${name}`, signal);
    if (mrd === undefined || mrd.metadata.deletionTimestamp !== undefined) return {};
    // Paused: an event and nothing else, as upstream's (internal/controller/apiextensions/managed/reconciler.go).
    if (isPausedPackage(mrd)) {
      this.options.events.event({ ...MRD, metadata: mrd.metadata }, RECONCILIATION_PAUSED_EVENT);
      return {};
    }
    if (mrd.spec.state !== 'Active') {
      await this.status(mrd, inactive(), signal);
      return {};
    }
    const crd = await this.applyCrd(mrd, signal);
    const isEstablished = isTrue(crd.status?.conditions);
    if (isEstablished && !isTrue(mrd.status?.conditions)) {
      this.event(mrd, 'Normal', 'Successfully applied CustomResourceDefinition');
    }
    await this.status(mrd, isEstablished ? established() : pending(), signal);
    return isEstablished ? {} : { requeueAfterMs: PENDING_RECHECK_MS };
  }

  /** Applies the MRD's CRD; a failure is reported on the MRD and thrown to be retried with backoff. */
  private async applyCrd(mrd: ManagedResourceDefinition, signal: AbortSignal): Promise<StoredCrd> {
    const { name } = mrd.metadata;
    try {
      return await serverSideApply<StoredCrd>(this.options.client, `${CRDS}/${name}`, crdOf(mrd), {
        fieldManager: MRD_FIELD_MANAGER,
        signal,
      });
    } catch (err) {
      this.event(mrd, 'Warning', `cannot apply CustomResourceDefinition: ${errorMessage(err, { cause: true })}`);
      await this.status(mrd, blocked('unable to apply CustomResourceDefinition, see events'), signal).catch(
        (writeErr: unknown) => {
          this.logger.debug({ mrd: name, err: errorMessage(writeErr) }, 'cannot update MRD status');
        },
      );
      throw new ReportedError(`cannot apply CustomResourceDefinition "${name}"`, { cause: err });
    }
  }

  private async status(mrd: ManagedResourceDefinition, condition: Condition, signal: AbortSignal): Promise<void> {
    const target: StatusTarget = {
      path: `${MRDS}/${mrd.metadata.name}`,
      stored: mrd.status,
    };
    await writeStatus(this.options, target, { conditions: [condition] }, signal);
  }

  private event(mrd: ManagedResourceDefinition, type: 'Normal' | 'Warning', message: string): void {
    this.options.events.event({ ...MRD, metadata: mrd.metadata }, { type, reason: REASON.apply, message });
  }
}

/** Whether conditions hold Established True. */
function isTrue(conditions: readonly { type: string; status: string }[] | undefined): boolean {
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
}
