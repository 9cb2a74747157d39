import { FifoLine, type KeyLine } from './keyLine.js';

/**
 * The stingy queue at the heart of the work queue (client-go's queue.go contract): a key waits in line at most
 * once however often it is added, a key handed to a worker is not handed out again until `done`, and a key added
 * while it is being processed is remembered (dirty) and lined up again when that processing ends. The order in
 * which waiting keys come out is the line's: FIFO by default, or fair across namespaces (`FairLine`).
 */
export class DedupingQueue {
  /** Keys that need processing: in line, or waiting for their current processing to finish. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();

  constructor(private readonly line: KeyLine = new FifoLine()) {}

  /** Adds `key`; returns false when it was already dirty, i.e. the add was coalesced. */
  add(key: string): boolean {
    if (this.dirty.has(key)) return false;
    this.dirty.add(key);
    if (!this.processing.has(key)) this.line.push(key);
    return true;
  }

  /** Takes the next key and marks it processing, or returns undefined when the line is empty. */
  get(): string | undefined {
    const key = this.line.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  /** Ends processing of `key`; if it was added meanwhile it goes back in line. Returns whether it did. */
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
    return this.line.length;
  }

  /** Drops every key in line (shutdown); keys being processed stay until their `done`. */
  clear(): void {
    for (const key of this.line.clear()) this.dirty.delete(key);
  }
}
