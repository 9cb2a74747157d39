import { ControlPlane } from '../../e2e/controlplane/index.js';

// One control plane per test run, started by mocha's global setup (setup.ts) and shared by every integration test.
let plane: ControlPlane | undefined;

export async function startSharedControlPlane(): Promise<void> {
  plane = await ControlPlane.start({ log: (line) => process.stderr.write(`  [controlplane] ${line}\n`) });
}

export async function stopSharedControlPlane(): Promise<void> {
  await plane?.stop();
  plane = undefined;
}

export function controlPlane(): ControlPlane {
  if (!plane)
    throw new Error('the integration control plane is not running: run through test/integration/.mocharc.json');
  return plane;
}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs` with the last thing seen,
 * so a timeout says what state the test was stuck in.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const seen = await check().then(
      (value) => ({ value, error: undefined as unknown }),
      (err: unknown) => ({ value: undefined, error: err instanceof Error ? err.message : err }),
    );
    if (seen.value !== undefined) return seen.value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(seen.error ?? 'undefined')}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
