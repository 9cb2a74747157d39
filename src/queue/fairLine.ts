import { FifoLine, type KeyLine } from './keyLine.js';

/** How a fair line splits keys into groups, and how many turns in a row each group gets. */
export interface FairLineOptions {
  /** The group a key belongs to. Default: its namespace (`namespaceOfKey`). */
  groupOf?: (key: string) => string;
  /**
   * Turns per round for a group: an integer of at least 1. Anything else counts as 1, so a bad weight can slow
   * its own group down but never stall the line. Read when the group's turn starts, so a change applies next round.
   */
  weightOf?: (group: string) => number;
}

/**
 * The group of a work-queue key: the namespace of "namespace/name", or "" for a cluster-scoped "name" (all
 * cluster-scoped keys share one group).
 */
export function namespaceOfKey(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function turnsOf(weight: number): number {
  return Number.isInteger(weight) && weight >= 1 ? weight : 1;
}

/**
 * Round-robin over groups (namespaces): each group with keys in line gets `weightOf(group)` turns in a row, then
 * the next group's turn comes; within a group keys keep their FIFO order. So a key of a quiet namespace waits for
 * at most one turn of every other namespace with work, however many keys those namespaces have queued (a FIFO
 * would make it wait behind all of them: kro#198).
 *
 * @example
 * const line = new FairLine({ weightOf: (ns) => (ns === 'prod' ? 2 : 1) });
 * for (const key of ['dev/a', 'dev/b', 'prod/x']) line.push(key);
 * line.shift(); // 'dev/a', then 'prod/x', then 'dev/b'
 */
export class FairLine implements KeyLine {
  private readonly groupOf: (key: string) => string;
  private readonly weightOf: (group: string) => number;
  /** Keys in line per group; a group is here only while it has keys. */
  private readonly groups = new Map<string, FifoLine>();
  /** Groups with keys, in the order their turns come; the front group is the one being served. */
  private readonly ring = new FifoLine();
  /** Whether the front group's turn has started, and how many keys it may still take in it. */
  private inTurn = false;
  private turnsLeft = 0;
  private size = 0;

  constructor(options: FairLineOptions = {}) {
    this.groupOf = options.groupOf ?? namespaceOfKey;
    this.weightOf = options.weightOf ?? ((): number => 1);
  }

  push(key: string): void {
    const group = this.groupOf(key);
    let keys = this.groups.get(group);
    if (keys === undefined) {
      // A group that had nothing in line joins at the back of the round: it waits for the others' turns, no more.
      keys = new FifoLine();
      this.groups.set(group, keys);
      this.ring.push(group);
    }
    keys.push(key);
    this.size += 1;
  }

  shift(): string | undefined {
    const group = this.nextGroup();
    if (group === undefined) return undefined;
    const keys = this.groups.get(group) as FifoLine;
    const key = keys.shift() as string;
    this.size -= 1;
    this.turnsLeft -= 1;
    if (keys.length === 0) {
      this.groups.delete(group);
      this.ring.shift();
      this.inTurn = false;
    }
    return key;
  }

  get length(): number {
    return this.size;
  }

  clear(): string[] {
    const dropped: string[] = [];
    for (let group = this.ring.shift(); group !== undefined; group = this.ring.shift()) {
      dropped.push(...(this.groups.get(group)?.clear() ?? []));
    }
    this.groups.clear();
    this.inTurn = false;
    this.turnsLeft = 0;
    this.size = 0;
    return dropped;
  }

  /**
   * The group whose key comes next. A group whose turn is used up goes to the back only now, when the next key is
   * taken, not when its last turn was taken: a group that joined in between then comes next, not after one more
   * turn of the group that was just served.
   */
  private nextGroup(): string | undefined {
    let group = this.ring.peek();
    if (group === undefined) return undefined;
    if (this.inTurn && this.turnsLeft <= 0) {
      this.ring.shift();
      this.ring.push(group);
      group = this.ring.peek() ?? group;
      this.inTurn = false;
    }
    if (!this.inTurn) {
      this.turnsLeft = this.turns(group);
      this.inTurn = true;
    }
    return group;
  }

  private turns(group: string): number {
    try {
      return turnsOf(this.weightOf(group));
    } catch {
      // A weight source that throws (a cache not ready) must not stop the queue; the group gets a plain turn.
      return 1;
    }
  }
}
