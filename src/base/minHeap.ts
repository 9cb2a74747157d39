/**
 * A binary min-heap of entries ordered by `at`, then by insertion, so entries due at the same moment come out in
 * the order they went in (the queue stays fair). Removal is lazy: callers skip entries that are no longer current.
 */
export interface HeapEntry {
  readonly at: number;
}

interface Slot<T> {
  readonly entry: T;
  readonly seq: number;
}

export class MinHeap<T extends HeapEntry> {
  private readonly slots: Slot<T>[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.slots.length;
  }

  peek(): T | undefined {
    return this.slots[0]?.entry;
  }

  push(entry: T): void {
    this.slots.push({ entry, seq: this.nextSeq++ });
    this.siftUp(this.slots.length - 1);
  }

  pop(): T | undefined {
    const top = this.slots[0];
    const last = this.slots.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.slots.length > 0) {
      this.slots[0] = last;
      this.siftDown(0);
    }
    return top.entry;
  }

  clear(): void {
    this.slots.length = 0;
  }

  private before(a: Slot<T>, b: Slot<T>): boolean {
    return a.entry.at < b.entry.at || (a.entry.at === b.entry.at && a.seq < b.seq);
  }

  private siftUp(index: number): void {
    const slot = this.at(index);
    let i = index;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = this.at(parentIndex);
      if (!this.before(slot, parent)) break;
      this.slots[i] = parent;
      i = parentIndex;
    }
    this.slots[i] = slot;
  }

  private siftDown(index: number): void {
    const slot = this.at(index);
    const length = this.slots.length;
    let i = index;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= length) break;
      if (child + 1 < length && this.before(this.at(child + 1), this.at(child))) child += 1;
      const smaller = this.at(child);
      if (!this.before(smaller, slot)) break;
      this.slots[i] = smaller;
      i = child;
    }
    this.slots[i] = slot;
  }

  private at(index: number): Slot<T> {
    const slot = this.slots[index];
    if (slot === undefined) throw new RangeError(`heap index ${index} out of range`);
    return slot;
  }
}
