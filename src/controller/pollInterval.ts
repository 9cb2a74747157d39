import { formatDuration, parseDuration } from '../apis/index.js';

export const POLL_INTERVAL_ANNOTATION = 'crossplane.io/poll-interval';

export interface PollIntervalFlags {
  /** --poll-interval: used when the annotation is absent or invalid. */
  pollIntervalMs: number;
  /** --min-poll-interval: annotation values are clamped up to it. */
  minPollIntervalMs: number;
}

export interface EffectivePollInterval {
  ms: number;
  /** Go-formatted, as written to status.effectivePollInterval. */
  text: string;
  source: 'annotation' | 'clamped' | 'default' | 'invalid';
  /** The rejected annotation value when source is "invalid", for one Warning event per distinct value. */
  invalidValue?: string;
}

/**
 * The poll interval in force for one resource: the crossplane.io/poll-interval annotation when it is a Go duration
 * (clamped up to --min-poll-interval; "0s" means the minimum), otherwise --poll-interval. An invalid value never
 * fails a reconcile: it falls back and is reported.
 */
export function effectivePollInterval(
  annotations: Readonly<Record<string, string>> | undefined,
  flags: PollIntervalFlags,
): EffectivePollInterval {
  const value = annotations?.[POLL_INTERVAL_ANNOTATION];
  if (value === undefined) return result(flags.pollIntervalMs, 'default');
  let ms: number;
  try {
    ms = parseDuration(value.trim());
  } catch {
    return { ...result(flags.pollIntervalMs, 'invalid'), invalidValue: value };
  }
  if (ms < 0) return { ...result(flags.pollIntervalMs, 'invalid'), invalidValue: value };
  if (ms < flags.minPollIntervalMs) return result(flags.minPollIntervalMs, 'clamped');
  return result(ms, 'annotation');
}

function result(ms: number, source: EffectivePollInterval['source']): EffectivePollInterval {
  return { ms, text: formatDuration(ms), source };
}

export const INVALID_POLL_INTERVAL_REASON = 'InvalidPollInterval';

/**
 * Which invalid crossplane.io/poll-interval value each object was last warned about, so a reconciler emits one
 * Warning event per distinct value rather than one per reconcile. Shared by the composite and managed reconcilers.
 */
export class PollIntervalWarnings {
  private readonly warned = new Map<string, string>();

  /**
   * The Warning message due for `poll` on the object `id` (its uid), or undefined when there is nothing new to say:
   * the value is valid (which also forgets an earlier warning) or this value was already reported.
   */
  check(id: string, poll: EffectivePollInterval, flags: PollIntervalFlags): string | undefined {
    const invalid = poll.invalidValue;
    if (invalid === undefined) {
      this.warned.delete(id);
      return undefined;
    }
    if (this.warned.get(id) === invalid) return undefined;
    this.warned.set(id, invalid);
    return `Ignoring crossplane.io/poll-interval "${invalid}": not a duration such as 30s or 1m30s; using ${effectivePollInterval(undefined, flags).text}`;
  }

  /** Forgets a deleted object. */
  forget(id: string): void {
    this.warned.delete(id);
  }
}
