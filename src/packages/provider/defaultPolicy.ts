// compositor's default activation policy, as `crossplane core init` creates it from its --activation flags
// (internal/initializer/managed_resource_activation_policy.go): a ManagedResourceActivationPolicy named "default"
// activating the given patterns, created once when absent and never updated, so a user's edit stays; no patterns, no
// policy. Crossplane's chart passes `*` (provider.defaultActivations), activating every MRD.
import { isAlreadyExists, type KubeClient } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import { DEFAULT_POLICY_NAME, MRAP, MRAPS } from './names.js';

export class DefaultActivationPolicy implements Lifecycle {
  readonly name = 'packages/default-activation-policy';

  constructor(private readonly options: { client: KubeClient; activations: readonly string[] }) {}

  async start(signal?: AbortSignal): Promise<void> {
    const { client, activations } = this.options;
    if (activations.length === 0) return;
    const body = { ...MRAP, metadata: { name: DEFAULT_POLICY_NAME }, spec: { activate: [...activations] } };
    await client.request('POST', MRAPS, { body, ...(signal ? { signal } : {}) }).catch((err: unknown) => {
      if (isAlreadyExists(err)) return;
      throw new Error(`cannot create ManagedResourceActivationPolicy "${DEFAULT_POLICY_NAME}"`, { cause: err });
    });
  }

  async stop(): Promise<void> {
    // Nothing runs: the policy stays for the MRAP controller.
  }
}

/** The patterns of --default-activations: comma-separated, blanks dropped. */
export function activationsOf(flag: string): string[] {
  return flag
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
