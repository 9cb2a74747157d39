// One target for the whole e2e run: E2E_TARGET=kind selects the kind cluster, anything else the local control plane.
import { KindTarget } from './kind.js';
import { LocalTarget } from './local.js';
import type { E2eTarget } from './target.js';

let current: E2eTarget | undefined;

export async function startTarget(): Promise<void> {
  current = process.env.E2E_TARGET === 'kind' ? await KindTarget.start() : await LocalTarget.start();
  try {
    await current.deploy();
  } catch (err) {
    await stopTarget();
    throw err;
  }
}

export async function stopTarget(): Promise<void> {
  await current?.close();
  current = undefined;
}

export function target(): E2eTarget {
  if (!current) throw new Error('no e2e target: run with --require e2e/setup.ts (npm run e2e)');
  return current;
}
