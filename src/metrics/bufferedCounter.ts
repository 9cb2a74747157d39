import { Counter, type Registry } from 'prom-client';

/** The part of a counter a hot path needs. */
export interface CounterHandle {
  inc(amount?: number): void;
}

/**
 * A counter whose increments are summed in a plain number and handed to prom-client when the registry is read.
 * prom-client hashes and validates the label set on every `inc` (about 200 ns); the circuit breaker counts every
 * watch event, so it counts here (about 1 ns) and scrapes see the same totals.
 */
export interface BufferedCounter<T extends string> {
  readonly counter: Counter<T>;
  /** The handle for one label set. Its series exists from this call on, at 0 until something is counted. */
  handle(labels: Partial<Record<T, string>>): CounterHandle;
}

class PendingCount<T extends string> implements CounterHandle {
  pending = 0;
  constructor(readonly labels: Partial<Record<T, string>>) {}

  inc(amount = 1): void {
    this.pending += amount;
  }
}

export function bufferedCounter<T extends string>(config: {
  name: string;
  help: string;
  labelNames: readonly T[];
  registry: Registry;
}): BufferedCounter<T> {
  const handles = new Map<string, PendingCount<T>>();
  const counter = new Counter<T>({
    name: config.name,
    help: config.help,
    labelNames: config.labelNames,
    registers: [config.registry],
    collect() {
      for (const handle of handles.values()) {
        if (handle.pending === 0) continue;
        this.inc(handle.labels, handle.pending);
        handle.pending = 0;
      }
    },
  });
  return {
    counter,
    handle(labels) {
      const id = config.labelNames.map((name) => labels[name] ?? '').join('\u0000');
      let handle = handles.get(id);
      if (handle === undefined) {
        handle = new PendingCount(labels);
        handles.set(id, handle);
        counter.inc(labels, 0);
      }
      return handle;
    },
  };
}
