/**
 * The order in which keys that are ready to run are handed out. The dedupe rules (a key waits in line at most
 * once, never while it is being processed) belong to `DedupingQueue`; a line only orders what it is given.
 */
export interface KeyLine {
  /** Puts `key` in line. The caller guarantees it is not in line already. */
  push(key: string): void;
  /** Takes the next key, or undefined when the line is empty. */
  shift(): string | undefined;
  /** Keys in line. */
  readonly length: number;
  /** Empties the line and returns the keys it held (shutdown). */
  clear(): string[];
}

/** First in, first out: client-go's order. */
export class FifoLine implements KeyLine {
  /** `head` marks the front so taking from the front is O(1); the array is compacted lazily. */
  private keys: string[] = [];
  private head = 0;

  push(key: string): void {
    this.keys.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.keys.length) return undefined;
    const key = this.keys[this.head] as string;
    this.head += 1;
    this.compact();
    return key;
  }

  /** The next key without taking it. */
  peek(): string | undefined {
    return this.keys[this.head];
  }

  get length(): number {
    return this.keys.length - this.head;
  }

  clear(): string[] {
    const dropped = this.keys.slice(this.head);
    this.keys = [];
    this.head = 0;
    return dropped;
  }

  private compact(): void {
    if (this.head === this.keys.length) {
      this.keys = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.head = 0;
    }
  }
}
