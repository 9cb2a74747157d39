import { describeSource, type WatchedObject } from './watchedObject.js';

/** How many recent event sources a circuit remembers to name the culprit, as many as Crossplane keeps. */
const SLOTS = 16;

/**
 * The sources of a circuit's last 16 events, kept as the objects' own kind/name/namespace strings (no copies, no
 * formatting per event) so that when the circuit opens the Responsive condition can name the source that sent
 * the most of them rather than whichever happened to send the last.
 */
export class RecentSources {
  // Three slots per event: kind, name, namespace.
  private readonly fields: (string | undefined)[] = new Array<string | undefined>(SLOTS * 3);
  private next = 0;
  private count = 0;

  remember(source: WatchedObject): void {
    const at = this.next * 3;
    this.fields[at] = source.kind;
    this.fields[at + 1] = source.metadata?.name;
    this.fields[at + 2] = source.metadata?.namespace;
    this.next = (this.next + 1) % SLOTS;
    this.count = Math.min(this.count + 1, SLOTS);
  }

  clear(): void {
    this.fields.fill(undefined);
    this.next = 0;
    this.count = 0;
  }

  /** The most frequent source; on a tie, the one seen most recently. Undefined when nothing was remembered. */
  mostFrequent(): string | undefined {
    const described: string[] = [];
    // Newest first, so the first to reach the top count wins a tie.
    for (let i = 1; i <= this.count; i++) {
      const at = ((this.next - i + SLOTS) % SLOTS) * 3;
      described.push(
        describeSource(this.fields[at] ?? 'Unknown', this.fields[at + 1] ?? '', this.fields[at + 2] ?? undefined),
      );
    }
    const counts = new Map<string, number>();
    for (const source of described) counts.set(source, (counts.get(source) ?? 0) + 1);
    let best: string | undefined;
    let bestCount = 0;
    for (const source of described) {
      const count = counts.get(source) ?? 0;
      if (count > bestCount) {
        best = source;
        bestCount = count;
      }
    }
    return best;
  }
}
