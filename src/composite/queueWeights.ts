import type { Logger } from 'pino';
import type { KubeObject } from '../kube/index.js';

/** The Namespace label that gives a namespace more turns of the fair work queue (`--fair-queue`). */
export const QUEUE_WEIGHT_LABEL = 'compositor.crossplane.io/queue-weight';

/** A weight as the label spells it: a positive decimal integer without sign or leading zeros. */
const WEIGHT = /^[1-9][0-9]*$/;

/**
 * The queue weight a label value asks for: absent means 1; anything that is not an integer of at least 1 also
 * means 1, and is reported as invalid so it can be logged.
 */
export function parseQueueWeight(value: string | undefined): { weight: number; invalid: boolean } {
  if (value === undefined) return { weight: 1, invalid: false };
  const weight = Number(value);
  if (!WEIGHT.test(value) || !Number.isSafeInteger(weight)) return { weight: 1, invalid: true };
  return { weight, invalid: false };
}

export interface NamespaceWeightsOptions {
  /** The Namespace object by name, from an informer cache; undefined when unknown (not synced yet, or deleted). */
  namespace: (name: string) => KubeObject | undefined;
  logger: Logger;
}

/**
 * `weightOf(namespace)` for the fair work queue, read from each Namespace's `compositor.crossplane.io/queue-weight`
 * label in the cache on every turn (cheap: one map lookup), so a relabelled namespace's weight applies from its next
 * turn. An invalid value counts as 1 and is logged once per namespace and value, not once per turn. Cluster-scoped
 * XRs (group "") and unknown namespaces weigh 1.
 */
export class NamespaceWeights {
  private readonly reported = new Map<string, string>();

  constructor(private readonly options: NamespaceWeightsOptions) {}

  weightOf(namespace: string): number {
    if (namespace === '') return 1;
    const labels = this.options.namespace(namespace)?.metadata.labels as Record<string, string> | undefined;
    const value = labels?.[QUEUE_WEIGHT_LABEL];
    const { weight, invalid } = parseQueueWeight(value);
    if (invalid && this.reported.get(namespace) !== value) {
      this.reported.set(namespace, value ?? '');
      this.options.logger.warn(
        { namespace, label: QUEUE_WEIGHT_LABEL, value },
        'invalid queue weight: want an integer of at least 1; using 1',
      );
    } else if (!invalid) {
      this.reported.delete(namespace);
    }
    return weight;
  }
}
