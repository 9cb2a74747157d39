// A steady workload of XR creates, updates and deletes, for the soak benchmark: at `opsPerSecond`, each operation
// drawn from the seeded `random`, keeping about `xrs` XRs alive. Operations that fail (a fault is on) are counted
// and dropped: the API server, not this tally, is the record of which XRs exist.
import type { KubeClient } from '../../src/kube/index.js';
import { createXrs, patchXrs, xrPath, type ScaleApi } from './api.js';
import { sleep } from './util.js';

export interface WorkloadCounts {
  created: number;
  updated: number;
  deleted: number;
  failed: number;
}

export interface Workload {
  readonly counts: WorkloadCounts;
  /** Runs operations at the steady rate for `ms`, then returns with none in flight. */
  runFor(ms: number): Promise<void>;
}

export function createWorkload(
  client: KubeClient,
  target: { api: ScaleApi; namespace: string },
  options: { opsPerSecond: number; xrs: number; random: () => number },
): Workload {
  const counts: WorkloadCounts = { created: 0, updated: 0, deleted: 0, failed: 0 };
  const live: string[] = [];
  let serial = 0;
  const pick = (): string | undefined => live[Math.floor(options.random() * live.length)];
  const one = async (): Promise<void> => {
    const roll = options.random();
    // Below the target size creates dominate; above it deletes do; updates are half of everything.
    const createShare = live.length < options.xrs ? 0.4 : 0.1;
    if (roll < 0.5 && live.length > 0) {
      const name = pick() ?? '';
      await patchXrs(client, target, [name], `u${serial++}`);
      counts.updated++;
    } else if (roll < 0.5 + createShare || live.length === 0) {
      const name = `soak-${(serial++).toString(36)}`;
      await createXrs(client, target, [name], { value: 'v1' });
      live.push(name);
      counts.created++;
    } else {
      const name = pick() ?? '';
      live.splice(live.indexOf(name), 1);
      await client.request('DELETE', xrPath(target.api, target.namespace, name));
      counts.deleted++;
    }
  };
  return {
    counts,
    runFor: async (ms) => {
      const end = Date.now() + ms;
      const gap = 1000 / options.opsPerSecond;
      const inFlight = new Set<Promise<void>>();
      for (let next = Date.now(); next < end; next += gap) {
        await sleep(Math.max(0, next - Date.now()));
        const op: Promise<void> = one()
          .catch(() => {
            counts.failed++;
          })
          .finally(() => inFlight.delete(op));
        inFlight.add(op);
      }
      await Promise.all(inFlight);
    },
  };
}
