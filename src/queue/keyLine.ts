import { Fifo } from '../base/index.js';

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
export class FifoLine extends Fifo<string> implements KeyLine {}
