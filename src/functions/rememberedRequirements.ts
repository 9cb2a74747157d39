// What each step of an XR's pipeline required on its last run, so the next run's requirements loop can send the
// resources those requirements select on the first call (as Crossplane v2.4 does): a function whose requirements
// have not changed is called once instead of twice. Keyed by the XR's uid rather than its name, so an XR recreated
// under the same name does not inherit its predecessor's requirements. Each entry carries the step it was learnt
// from (its function and input): a step whose function or input changed is not seeded with what the old one asked
// for. An XR with nothing of its own (new, or forgotten since a restart) is seeded with what the step last required
// for another XR of its namespace: steps mostly ask the same of every XR there (an EnvironmentConfig, the namespace's
// settings), and a guess that is wrong costs nothing more than no guess, since the loop sends the function only what
// it asked for before taking its answer. Bounded: the least recently used go first.
import { LruMap } from '../base/index.js';
import type { Requirements } from './types.js';

/** Steps (XR and step) remembered at most by default: about one entry per XR for a pipeline with one such step. */
export const DEFAULT_REMEMBERED_REQUIREMENTS = 10_000;

/**
 * One XR's view: what a step last required, by step name. `input` identifies what the step runs (its function and
 * input, as `stepFingerprint` digests them): what was learnt under another is not returned.
 */
export interface RequirementsMemory {
  get(step: string, input: string): Requirements | undefined;
  /** Remembers what the step required; undefined (it required nothing) forgets the step. */
  set(step: string, input: string, requirements: Requirements | undefined): void;
}

interface Entry {
  input: string;
  requirements: Requirements;
}

/**
 * Remembered requirements of every XR, by uid and step, and the last of each step per namespace.
 *
 * @example
 * const remembered = new RememberedRequirements();
 * const runner = new RequirementsRunner(inner, fetcher, remembered.forXr(xr.metadata.uid, xr.metadata.namespace));
 */
export class RememberedRequirements {
  private readonly entries: LruMap<string, Entry>;
  /** By namespace and step: what the step last required for any XR there, the guess for one without its own. */
  private readonly latest: LruMap<string, Entry>;

  constructor(max = DEFAULT_REMEMBERED_REQUIREMENTS) {
    this.entries = new LruMap({ max });
    this.latest = new LruMap({ max });
  }

  /** XR and step entries kept; informational only. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The memory of one XR (`namespace` undefined for a cluster-scoped one); an XR without a uid (not yet stored)
   * remembers nothing.
   */
  forXr(uid: string | undefined, namespace?: string): RequirementsMemory | undefined {
    if (uid === undefined || uid === '') return undefined;
    // Neither a uid nor a namespace holds a "/", so each key names one XR (or namespace) and one step.
    const own = (step: string): string => `${uid}/${step}`;
    const shared = (step: string): string => `${namespace ?? ''}/${step}`;
    const matching = (entry: Entry | undefined, input: string): Requirements | undefined =>
      entry?.input === input ? entry.requirements : undefined;
    return {
      get: (step, input) =>
        matching(this.entries.get(own(step)), input) ?? matching(this.latest.get(shared(step)), input),
      set: (step, input, requirements) => {
        if (requirements === undefined) {
          this.entries.delete(own(step));
          this.latest.delete(shared(step));
        } else {
          this.entries.set(own(step), { input, requirements });
          this.latest.set(shared(step), { input, requirements });
        }
      },
    };
  }
}
