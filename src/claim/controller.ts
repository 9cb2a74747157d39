import {
  claimOf,
  ConnectionSecrets,
  ControllerShell,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
  type Xr,
  type XrType,
} from '../controller/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Claim } from './claim.js';
import { ClaimReconciler } from './reconciler.js';

export interface ClaimControllerOptions extends ControllerContext {
  /** claim/<claim plural>.<group> */
  name: string;
  claimType: { apiVersion: string; kind: string };
  xrType: XrType;
  settings: ControllerSettings;
}

/**
 * One claim controller per XRD that offers claims, started and stopped by the XRD controller: watches the claims
 * and the XRs of that XRD (an XR's change reaches its claim through spec.claimRef) and runs the claim reconciler.
 */
export class ClaimController implements Lifecycle {
  private readonly shell: ControllerShell;
  private reconciler: ClaimReconciler | undefined;
  /** The XRs' and claims' connection Secrets, from the engine's shared informer of them. */
  private readonly secrets: ConnectionSecrets;

  constructor(private readonly options: ClaimControllerOptions) {
    this.secrets = new ConnectionSecrets(options);
    const { claimType, xrType } = options;
    this.shell = new ControllerShell({
      ...options,
      watches: [
        watchKind<Claim>({ kind: claimType }),
        watchKind<Xr>({
          kind: xrType,
          keys: (event) => {
            const claim = claimOf(event.object);
            return claim?.kind === claimType.kind ? [`${claim.namespace}/${claim.name}`] : [];
          },
        }),
      ],
      reconcile: (key, signal) => {
        if (!this.reconciler) throw new Error('the claim controller is not started');
        return this.reconciler.reconcile(key, signal);
      },
      errors: { keyField: 'claim' },
      ready: () => {
        this.reconciler = new ClaimReconciler({
          ...options,
          claims: this.shell.lease<Claim>(claimType).informer.store,
          xrs: this.shell.lease<Xr>(xrType).informer.store,
          logger: options.logger.child({ controller: options.name }),
          secrets: this.secrets,
        });
      },
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** Watches claims and XRs and starts the workers; resolves once both caches are synced. */
  start(signal?: AbortSignal): Promise<void> {
    return this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
    await this.secrets.stop();
  }
}
