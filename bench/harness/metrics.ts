// Scrapes a Prometheus text endpoint and sums its samples: enough of the exposition format for counters and
// gauges (histograms come through as their _bucket/_sum/_count samples).

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses Prometheus text exposition (comments and blank lines skipped). */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match?.[1] || match[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      if (key !== undefined && value !== undefined) labels[key] = value.replace(/\\(.)/g, '$1');
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`cannot scrape ${url}: HTTP ${response.status}`);
  return parsePrometheus(await response.text());
}

/** The sum of every sample named `name` whose labels include `match`. */
export function sum(samples: readonly Sample[], name: string, match: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** Sums of the samples named `name`, keyed by the value of `label`. */
export function byLabel(samples: readonly Sample[], name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = s.labels[label] ?? '';
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

/** `after - before` per key (keys of either side). */
export function delta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of new Set([...Object.keys(after), ...Object.keys(before)])) {
    out[key] = (after[key] ?? 0) - (before[key] ?? 0);
  }
  return out;
}

export const WRITE_VERBS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** API writes (POST, PUT, PATCH, DELETE) counted by rest_client_requests_total. */
export function writes(samples: readonly Sample[]): number {
  const verbs = byLabel(samples, 'rest_client_requests_total', 'method');
  return WRITE_VERBS.reduce((total, verb) => total + (verbs[verb] ?? 0), 0);
}
