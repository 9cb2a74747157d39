// The conformance run's report: one entry per vector (and, later, per scenario), a line per failure naming the id
// with a short path-level diff, the final `N passed, N failed, N skipped` line, and the JSON summary.
import { writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

export type Status = 'passed' | 'failed' | 'unsupported';

export interface Entry {
  id: string;
  kind: string;
  status: Status;
  reason?: string;
}

const MAX_DIFFS = 3;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/** The child pairs to compare when both sides are objects, or arrays of one length; undefined otherwise. */
function children(actual: unknown, expected: unknown, path: string): [unknown, unknown, string][] | undefined {
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);
  if (isObject(actual) && isObject(expected)) {
    const keys = [...new Set([...Object.keys(actual), ...Object.keys(expected)])].sort();
    return keys.map((k) => [actual[k], expected[k], at(k)]);
  }
  if (Array.isArray(actual) && Array.isArray(expected) && actual.length === expected.length) {
    return actual.map((a: unknown, i) => [a, expected[i], `${path}[${i}]`]);
  }
  return undefined;
}

/** Paths at which actual and expected differ, as `path: got X, want Y`. */
export function jsonDiff(actual: unknown, expected: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= MAX_DIFFS || isDeepStrictEqual(actual, expected)) return out;
  const pairs = children(actual, expected, path);
  if (pairs === undefined) out.push(`${path === '' ? '(root)' : path}: got ${show(actual)}, want ${show(expected)}`);
  else for (const [a, e, p] of pairs) jsonDiff(a, e, p, out);
  return out;
}

/** One line describing why a vector failed. */
export function failureReason(err: unknown): string {
  const e = err as { message?: string; actual?: unknown; expected?: unknown; showDiff?: boolean };
  const message = (e.message ?? String(err)).split('\n')[0] ?? '';
  if (e.showDiff !== true) return message;
  const diffs = jsonDiff(e.actual, e.expected);
  return diffs.length === 0 ? message : diffs.join('; ');
}

/** One line per failure with its id and why, then `N passed, N failed, N skipped`. */
export function reportLines(entries: readonly Entry[]): string[] {
  const count = (status: Status): number => entries.filter((e) => e.status === status).length;
  return [
    ...entries.filter((e) => e.status === 'failed').map((e) => `FAIL ${e.id} (${e.kind}): ${e.reason ?? ''}`),
    `${count('passed')} passed, ${count('failed')} failed, ${count('unsupported')} skipped`,
  ];
}

export class Report {
  private readonly entries: Entry[] = [];

  record(entry: Entry): void {
    this.entries.push(entry);
  }

  count(status: Status): number {
    return this.entries.filter((e) => e.status === status).length;
  }

  /** One line per failure, then the final line. */
  lines(): string[] {
    return reportLines(this.entries);
  }

  /** The --json summary: counts by kind and status, and every entry. */
  writeJson(file: string): void {
    const byKind: Record<string, Record<Status, number>> = {};
    for (const e of this.entries) {
      const counts = (byKind[e.kind] ??= { passed: 0, failed: 0, unsupported: 0 });
      counts[e.status]++;
    }
    const summary = {
      passed: this.count('passed'),
      failed: this.count('failed'),
      unsupported: this.count('unsupported'),
      byKind,
      entries: this.entries,
    };
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  }
}

/** The run's one report: every conformance suite records into it; setup.ts prints or writes it at the end. */
export const report = new Report();
