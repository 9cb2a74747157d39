// Reads the conformance corpus (../shared/conformance, or $COMPOSITOR_CONFORMANCE_DIR) at run time. It is never
// copied into this repository; a missing corpus is an error, never a silent pass.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../src/apis/index.js';

export interface Vector {
  id: string;
  kind: string;
  file: string;
  function?: string;
  upstream?: { repo?: string; test?: string; function?: string };
  given?: Record<string, unknown>;
  expect?: Record<string, unknown>;
  request?: Record<string, unknown>;
  [key: string]: unknown;
}

export function corpusDir(): string {
  return resolve(process.env.COMPOSITOR_CONFORMANCE_DIR ?? join(packageRoot(), '..', 'shared', 'conformance'));
}

/** Throws a one-line error naming the path when the corpus cannot be read. */
export function checkCorpus(dir: string = corpusDir()): void {
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    readdirSync(dir);
  } catch (err) {
    throw new Error(`cannot read conformance corpus ${dir}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** Every vector of a folder (pt-vectors, auto-ready-vectors, engine-vectors), sorted by file name. */
export function loadVectors(folder: string, dir: string = corpusDir()): Vector[] {
  const path = join(dir, folder);
  return readdirSync(path)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ ...(parse(readFileSync(join(path, f), 'utf8')) as Omit<Vector, 'file'>), file: f }) as Vector);
}
