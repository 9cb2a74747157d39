// The ManagedResourceDefinition controller, as Crossplane v2.3's (internal/controller/apiextensions/managed): an
// Inactive MRD is Established False (InactiveManagedResource) and has no CRD; an Active one gets its CRD server-side
// applied (mrdCrd.ts) and is Established once the CRD is. A failure to apply is a Warning event and Established False
// with upstream's message, retried with backoff. Nothing here deletes a CRD: an MRD going away leaves its CRD to the
// garbage collector, which deletes it only once neither the MRD nor its ProviderRevision owns it.
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import { ControllerShell, watchKind, type ControllerContext, type ControllerSettings } from '../../controller/index.js';
import { getIfExists, serverSideApply, type KubeObject } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import { writeStatus, type StatusTarget } from '../configuration/index.js';
import type { Condition } from '../types.js';
import { blocked, established, inactive, pending } from './conditions.js';
import { crdOf, type ManagedResourceDefinition } from './mrdCrd.js';
import { CRD, CRDS, MRD, MRD_FIELD_MANAGER, MRDS } from './names.js';

export interface MrdControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  clock?: Clock;
}

const REASON = { apply: 'ApplyCustomResourceDefinition' } as const;

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
      watches: [
        watchKind({ kind: MRD }),
        // A CRD an MRD owns: its Established condition is the MRD's, and a change to it is put back.
        watchKind<StoredCrd>({
          kind: CRD,
          keys: (event) =>
            (event.object.metadata.ownerReferences ?? [])
              .filter((r) => r.kind === MRD.kind && r.apiVersion === MRD.apiVersion)
              .map((r) => r.name),
        }),
      ],
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
    if (mrd.spec.state !== 'Active') {
      await this.status(mrd, inactive(), signal);
      return {};
    }
    let crd: StoredCrd;
    try {
      crd = await serverSideApply<StoredCrd>(this.options.client, `${CRDS}/${name}`, crdOf(mrd), {
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
    const isEstablished = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    const wasEstablished = mrd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (isEstablished === true && wasEstablished !== true) {
      this.event(mrd, 'Normal', 'Successfully applied CustomResourceDefinition');
    }
    await this.status(mrd, isEstablished === true ? established() : pending(), signal);
    return {};
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
