// What each step of an XR's pipeline required on its last run, so the next run's requirements loop can send the
// resources those requirements select on the first call (as Crossplane v2.4 does): a function whose requirements
// have not changed is called once instead of twice. Keyed by the XR's uid rather than its name, so an XR recreated
// under the same name does not inherit its predecessor's requirements. Each entry carries the step it was learnt
// from (its function and input): a step whose function or input changed is not seeded with what the old one asked
// for. Bounded: the least recently used go first.
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
 * Remembered requirements of every XR, by uid and step.
 *
 * @example
 * const remembered = new RememberedRequirements();
 * const runner = new RequirementsRunner(inner, fetcher, remembered.forXr(xr.metadata.uid));
 */
export class RememberedRequirements {
  private readonly entries: LruMap<string, Entry>;

  constructor(max = DEFAULT_REMEMBERED_REQUIREMENTS) {
    this.entries = new LruMap({ max });
  }

  /** Entries kept; informational only. */
  get size(): number {
    return this.entries.size;
  }

  /** The memory of one XR; an XR without a uid (not yet stored) remembers nothing. */
  forXr(uid: string | undefined): RequirementsMemory | undefined {
    if (uid === undefined || uid === '') return undefined;
    // A uid holds no "/", so the key names one XR and one step.
    const key = (step: string): string => `${uid}/${step}`;
    return {
      get: (step, input) => {
        const entry = this.entries.get(key(step));
        return entry?.input === input ? entry.requirements : undefined;
      },
      set: (step, input, requirements) => {
        if (requirements === undefined) this.entries.delete(key(step));
        else this.entries.set(key(step), { input, requirements });
      },
    };
  }
}
