import { startSharedControlPlane, stopSharedControlPlane } from './harness.js';

// Mocha global fixtures: the control plane outlives every test file and is torn down even when tests fail.
export async function mochaGlobalSetup(): Promise<void> {
  await startSharedControlPlane();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopSharedControlPlane();
}
