/**
 * The stingy FIFO at the heart of the work queue (client-go's queue.go contract): a key waits in line at most
 * once however often it is added, a key handed to a worker is not handed out again until `done`, and a key added
 * while it is being processed is remembered (dirty) and lined up again when that processing ends.
 */
export class DedupingQueue {
  /** Keys in line. `head` marks the front so taking from the front is O(1); the array is compacted lazily. */
  private line: string[] = [];
  private head = 0;
  /** Keys that need processing: in line, or waiting for their current processing to finish. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();

  /** Adds `key`; returns false when it was already dirty, i.e. the add was coalesced. */
  add(key: string): boolean {
    if (this.dirty.has(key)) return false;
    this.dirty.add(key);
    if (!this.processing.has(key)) this.line.push(key);
    return true;
  }

  /** Takes the front key and marks it processing, or returns undefined when the line is empty. */
  get(): string | undefined {
    if (this.head >= this.line.length) return undefined;
    const key = this.line[this.head] as string;
    this.head += 1;
    this.compact();
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  /** Ends processing of `key`; if it was added meanwhile it goes to the back of the line. Returns whether it did. */
  done(key: string): boolean {
    this.processing.delete(key);
    if (!this.dirty.has(key)) return false;
    this.line.push(key);
    return true;
  }

  isDirty(key: string): boolean {
    return this.dirty.has(key);
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  /** Keys in line. Informational only: it changes as soon as a worker takes one. */
  get length(): number {
    return this.line.length - this.head;
  }

  /** Drops every key in line (shutdown); keys being processed stay until their `done`. */
  clear(): void {
    for (let i = this.head; i < this.line.length; i++) this.dirty.delete(this.line[i] as string);
    this.line = [];
    this.head = 0;
  }

  private compact(): void {
    if (this.head === this.line.length) {
      this.line = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.line.length) {
      this.line = this.line.slice(this.head);
      this.head = 0;
    }
  }
}
