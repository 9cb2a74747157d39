import type { Hold } from './gate.js';

// The words the XR's conditions and events use for ordering. Sorted and free of timestamps that move, so a condition
// written twice for the same state is written identically and never flaps (a deletion's start is fixed, its age
// is not: the message carries the former, the stuck gauge the latter).

/** "app waits on db, net; web waits on app; and 2 more": what waits on what, `shown` holds at most. */
export function waitingMessage(holds: readonly Hold[], shown = 5): string {
  const lines = [...holds]
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0))
    .map((h) => `${h.resource} ${h.reason}`);
  if (lines.length <= shown) return lines.join('; ');
  return `${lines.slice(0, shown).join('; ')}; and ${lines.length - shown} more`;
}

/**
 * A deletion that has not finished: "vpc is being deleted since 2026-11-28T10:00:00Z", from the object's
 * deletionTimestamp (how long is the stuck gauge's to say, so the message stays the same while it waits).
 */
export function deletingSince(resource: string, deletionTimestamp: string | undefined): string {
  return deletionTimestamp ? `${resource} is being deleted since ${deletionTimestamp}` : `${resource} is being deleted`;
}

/**
 * What an XR being deleted in order waits on: "cluster waits for release to be deleted; release is being deleted
 * since 2026-11-28T10:00:00Z". Each held resource, then each deletion under way, by name.
 */
export function teardownMessage(
  held: readonly Hold[],
  deleting: readonly { name: string; deletionTimestamp?: string }[],
  shown = 5,
): string {
  const lines = [
    ...held.map((h) => ({ name: h.resource, text: `${h.resource} ${h.reason}` })),
    ...deleting.map((d) => ({ name: d.name, text: deletingSince(d.name, d.deletionTimestamp) })),
  ];
  const sorted = lines.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((l) => l.text);
  if (sorted.length <= shown) return sorted.join('; ');
  return `${sorted.slice(0, shown).join('; ')}; and ${sorted.length - shown} more`;
}

/** "Deleting app, monitoring; 2 more waves after them" for the event of each wave. */
export function waveMessage(names: readonly string[], wavesAfter: number): string {
  const after =
    wavesAfter === 0 ? 'the last wave' : `${wavesAfter} more ${wavesAfter === 1 ? 'wave' : 'waves'} after them`;
  return `Deleting ${[...names].sort().join(', ')}; ${after}`;
}
