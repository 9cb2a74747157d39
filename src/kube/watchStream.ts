// Reading a watch response: newline-delimited JSON, one `{ type, object }` per line.

/** One raw watch event as the API server sends it. */
export interface RawWatchEvent {
  type: string;
  object: unknown;
}

export interface WatchStreamCallbacks {
  /** Every chunk received, parsed or not: the connection health check counts it as proof of life. */
  onChunk(): void;
  onEvent(event: RawWatchEvent): void;
}

/**
 * Feeds each complete line of `body` to `onEvent`, until the body ends (resolves) or fails (rejects). A line that
 * is not JSON is skipped, as client-go's decoder would fail the watch on it but client-node's skips it.
 */
export async function readWatchStream(body: AsyncIterable<Uint8Array>, callbacks: WatchStreamCallbacks): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    callbacks.onChunk();
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      emitLine(pending.slice(0, newline), callbacks);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  }
  emitLine(pending + decoder.decode(), callbacks);
}

function emitLine(line: string, callbacks: WatchStreamCallbacks): void {
  if (line.trim() === '') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return;
  }
  const event = parsed as Partial<RawWatchEvent> | null;
  if (typeof event?.type === 'string') callbacks.onEvent({ type: event.type, object: event.object });
}
