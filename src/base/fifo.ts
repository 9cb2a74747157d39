/**
 * A first-in, first-out list with O(1) `shift`: a `head` index marks the front and the array is compacted lazily,
 * once the taken part is both large and more than half of it (or everything).
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  /** Takes the front item, or undefined when the list is empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head += 1;
    this.compact();
    return item;
  }

  /** The front item without taking it. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  get length(): number {
    return this.items.length - this.head;
  }

  /** Empties the list and returns what it held, front first. */
  clear(): T[] {
    const dropped = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return dropped;
  }

  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
