// The pure half of the Event recorder: which occurrences aggregate into one Event, the bounded table of open
// series, and the wire formats the API server validates (MicroTime, note length, object names). No I/O and no
// clock of its own, so all of it is tested without a server.
import { LruMap } from '../base/index.js';

/** events.k8s.io/v1 rejects a note longer than 1 kB (counted in bytes). */
export const NOTE_MAX_BYTES = 1024;
/** Event names are DNS subdomains. */
const NAME_MAX_LENGTH = 253;
const TRUNCATION_MARKER = '...';

/**
 * A time in the MicroTime form the API server parses (`2006-01-02T15:04:05.000000Z`): it insists on exactly six
 * fractional digits. JavaScript clocks have millisecond precision, so the last three digits are always zero.
 */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * The message cut to fit the API's 1 kB note limit, ending in "..." so readers know text is missing. The cut never
 * splits a multi-byte UTF-8 character, which would otherwise decode to a replacement character.
 */
export function truncateNote(message: string): string {
  const bytes = Buffer.from(message, 'utf8');
  if (bytes.length <= NOTE_MAX_BYTES) return message;
  let end = NOTE_MAX_BYTES - TRUNCATION_MARKER.length;
  // A continuation byte (10xxxxxx) at the cut means the character straddles it: cut before its lead byte.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + TRUNCATION_MARKER;
}

/**
 * `<regarding name>.<suffix>`, as client-go names Events. Some kinds allow names that are not DNS subdomains (RBAC
 * `system:` roles), and the suffix makes long names overflow 253 characters; either would make the server reject
 * the Event, so the name part is lowered, cleaned label by label and shortened.
 */
export function eventName(regardingName: string, suffix: string): string {
  const labels = regardingName
    .toLowerCase()
    .split('.')
    .map((label) => label.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, ''))
    .filter((label) => label !== '');
  const room = NAME_MAX_LENGTH - suffix.length - 1;
  const prefix = labels
    .join('.')
    .slice(0, room)
    .replace(/[.-]+$/, '');
  return `${prefix === '' ? 'object' : prefix}.${suffix}`;
}

/** What makes two occurrences the same Event. `object` is the uid, or kind/namespace/name when there is none. */
export interface AggregateParts {
  object: string;
  type: string;
  reason: string;
  action: string;
  note: string;
}

export function aggregateKey(parts: AggregateParts): string {
  // JSON keeps the parts apart whatever characters they contain.
  return JSON.stringify([parts.object, parts.type, parts.reason, parts.action, parts.note]);
}

/** The occurrences of one aggregate key while they are within the window of each other: one Event on the server. */
export interface Series<T> {
  readonly key: string;
  /** What the Event says; fixed for the series. */
  readonly detail: T;
  /** The Event's metadata.name; replaced when the Event has to be created again. */
  name: string;
  /** Whether the Event exists on the server (a create succeeded). */
  created: boolean;
  /** Occurrences observed; the value of series.count. */
  count: number;
  /** The count the last write settled (written or given up); below `count` means a write is due. */
  written: number;
  readonly firstObserved: number;
  lastObserved: number;
  /** A write loop owns this series; further occurrences only raise `count` and are coalesced into its next write. */
  writing: boolean;
}

export interface SeriesTableOptions {
  /** An occurrence continues a series when the previous one is less than this long ago (sliding window). */
  windowMs: number;
  /** At most this many keys are remembered; the least recently observed is forgotten first. */
  maxTracked: number;
}

/**
 * The open series by aggregate key, bounded in both time and count. The least recently observed comes first, so
 * expiry and eviction both only ever look at the front.
 */
export class SeriesTable<T> {
  private readonly series: LruMap<string, Series<T>>;

  constructor(private readonly options: SeriesTableOptions) {
    this.series = new LruMap({ max: options.maxTracked });
  }

  get size(): number {
    return this.series.size;
  }

  /**
   * Records one occurrence at `now` and returns its series: the open one for `key`, or a new one (count 1) named by
   * `start` when there is none or the previous occurrence is a window or more ago.
   */
  observe(key: string, now: number, start: () => { name: string; detail: T }): Series<T> {
    this.series.deleteWhile((series) => this.expired(series, now));
    const open = this.series.peek(key);
    const series = open && !this.expired(open, now) ? open : newSeries(key, now, start());
    series.count++;
    series.lastObserved = now;
    // Set again: now the most recently observed; the least recently observed beyond maxTracked is forgotten.
    this.series.set(key, series);
    return series;
  }

  private expired(series: Series<T>, now: number): boolean {
    return now - series.lastObserved >= this.options.windowMs;
  }
}

function newSeries<T>(key: string, now: number, start: { name: string; detail: T }): Series<T> {
  return {
    key,
    detail: start.detail,
    name: start.name,
    created: false,
    count: 0,
    written: 0,
    firstObserved: now,
    lastObserved: now,
    writing: false,
  };
}
