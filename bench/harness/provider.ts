// A simulated provider: for each kind standing in for a managed resource it watches every object (ReadyWatch) and,
// `delayMs` after it first sees one without a Ready condition, writes Ready and Synced True through the status
// subresource, as a provider reports an external resource available. Its requests go through the benchmark's
// counting client, so they are the benchmark's own and not the controller's.
import type { KubeConfig } from '@kubernetes/client-node';
import { CONTENT_TYPE, isNotFound, type KubeClient } from '../../src/kube/index.js';
import type { ScaleXr } from './api.js';
import { ReadyWatch } from './readyWatch.js';

export interface ProviderKind {
  apiVersion: string;
  plural: string;
}

export class SimulatedProvider {
  private readonly watches: ReadyWatch[] = [];
  private readonly scheduled = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private statusWrites = 0;
  private failedWrites = 0;
  private lastError = '';

  private constructor(
    private readonly client: KubeClient,
    private readonly delayMs: number,
  ) {}

  static async start(
    client: KubeClient,
    kubeConfig: KubeConfig,
    kinds: readonly ProviderKind[],
    delayMs: number,
  ): Promise<SimulatedProvider> {
    const provider = new SimulatedProvider(client, delayMs);
    for (const kind of kinds) {
      const path = `/apis/${kind.apiVersion}/${kind.plural}`;
      provider.watches.push(
        await ReadyWatch.start(client, kubeConfig, path, (object, ready) => {
          provider.seen(kind, object, ready);
        }),
      );
    }
    return provider;
  }

  /** Status writes made so far, and those the API server did not take (each tried again). */
  get writes(): { done: number; failed: number; lastError: string } {
    return { done: this.statusWrites, failed: this.failedWrites, lastError: this.lastError };
  }

  /** Open watches: one per kind. */
  get watchCount(): number {
    return this.watches.length;
  }

  stop(): void {
    for (const watch of this.watches) watch.stop();
    for (const timer of this.timers) clearTimeout(timer);
  }

  private seen(kind: ProviderKind, object: ScaleXr, ready: boolean): void {
    const { name, namespace = '' } = object.metadata;
    const key = `${kind.plural}/${namespace}/${name}`;
    if (ready || this.scheduled.has(key)) return;
    this.scheduled.add(key);
    this.later(kind, namespace, name, this.delayMs);
  }

  /**
   * Marks the object Ready after `delayMs`; a write the API server did not take is tried again after twice as long
   * (at most 30 s), so a provider does not add to the load of a busy API server.
   */
  private later(kind: ProviderKind, namespace: string, name: string, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.markReady(kind, namespace, name).catch((err: unknown) => {
        if (isNotFound(err)) return;
        this.failedWrites++;
        this.lastError = err instanceof Error ? err.message : String(err);
        this.later(kind, namespace, name, Math.min(30_000, Math.max(250, delayMs * 2)));
      });
    }, delayMs);
    this.timers.add(timer);
  }

  private async markReady(kind: ProviderKind, namespace: string, name: string): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = (type: string): Record<string, string> => ({
      type,
      status: 'True',
      reason: type === 'Ready' ? 'Available' : 'ReconcileSuccess',
      lastTransitionTime: now,
    });
    await this.client.request(
      'PATCH',
      `/apis/${kind.apiVersion}/namespaces/${namespace}/${kind.plural}/${name}/status`,
      {
        body: { status: { conditions: [condition('Ready'), condition('Synced')] } },
        contentType: CONTENT_TYPE.mergePatch,
        query: { fieldManager: 'bench-provider' },
      },
    );
    this.statusWrites++;
  }
}
