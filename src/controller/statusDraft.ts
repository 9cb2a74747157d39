import { isSubset } from './applied.js';
import { sameCondition, setConditions, type Condition, type ConditionInput, type ConditionTime } from './conditions.js';
import type { ReconciledObject } from './object.js';

type Status = NonNullable<ReconciledObject['status']>;

/**
 * The status a reconcile is building (of an XR, a claim, a managed resource, an XRD): starts from what is stored, collects conditions (each stamped with the
 * XR's generation) and fields, and knows whether writing it would change anything, so a steady state writes
 * nothing.
 */
export class StatusDraft {
  private conditions: Condition[];
  private fields: Record<string, unknown>;
  /** The types this draft set, stamped with its generation (the others keep what is stored). */
  private readonly stamped = new Set<string>();
  private readonly time: ConditionTime;

  constructor(
    private readonly current: Status,
    private generation: number | undefined,
    now: () => Date,
  ) {
    this.time = { now, precision: 'seconds' };
    this.conditions = [...(current.conditions ?? [])];
    const { conditions: _conditions, ...fields } = structuredClone(current);
    this.fields = fields;
  }

  setCondition(condition: ConditionInput): void {
    const stamped: Condition = { ...condition };
    if (this.generation !== undefined) stamped.observedGeneration = this.generation;
    this.conditions = setConditions(this.conditions, [stamped], this.time);
    this.stamped.add(condition.type);
  }

  /**
   * The object's generation moved during the reconcile (a write of its spec, such as the XR's machinery): the
   * conditions set so far and from now on say they observed the new one, so the status is not written a second
   * time, by the next reconcile, only to move observedGeneration.
   */
  observeGeneration(generation: number | undefined): void {
    if (generation === undefined || generation === this.generation) return;
    this.generation = generation;
    this.conditions = this.conditions.map((c) =>
      this.stamped.has(c.type) ? { ...c, observedGeneration: generation } : c,
    );
  }

  condition(type: string): Condition | undefined {
    return this.conditions.find((c) => c.type === type);
  }

  conditionTypes(): string[] {
    return this.conditions.map((c) => c.type);
  }

  get(field: string): unknown {
    return this.fields[field];
  }

  set(field: string, value: unknown): void {
    this.fields[field] = value;
  }

  /** Replaces every field but the conditions with what the function pipeline desires (plus compositor's fields). */
  replaceFields(fields: Record<string, unknown>): void {
    const keep = {
      effectivePollInterval: this.fields.effectivePollInterval,
      lastHandledReconcileAt: this.fields.lastHandledReconcileAt,
      // Legacy XRs and claims: when connection details were last published, which conditions the claim shows.
      connectionDetails: this.fields.connectionDetails,
      claimConditionTypes: this.fields.claimConditionTypes,
    };
    this.fields = structuredClone(fields);
    for (const [key, value] of Object.entries(keep)) if (value !== undefined) this.fields[key] = value;
  }

  toStatus(): Status {
    return { ...this.fields, conditions: this.conditions };
  }

  /** True when the stored status already says everything this draft says. */
  unchanged(): boolean {
    const stored = this.current.conditions ?? [];
    for (const condition of this.conditions) {
      const before = stored.find((c) => c.type === condition.type);
      if (!sameCondition(before, condition) || before?.lastTransitionTime !== condition.lastTransitionTime) {
        return false;
      }
    }
    const { conditions: _conditions, ...storedFields } = this.current;
    return isSubset(this.fields, storedFields) && Object.keys(storedFields).every((key) => key in this.fields);
  }
}
