// What every e2e scenario runs against. The scenarios are the same for the local control plane and for kind; only
// how compositor is deployed, killed and read differs, and that is all a target does.
import type { KubeClient } from '../../src/kube/index.js';
import type { ChartValues } from './chart.js';

export interface E2eTarget {
  /** An admin client for the test itself (never compositor's identity). */
  readonly client: KubeClient;
  /** The gRPC endpoint compositor reaches the e2e function at; set as the Function's endpoint annotation. */
  readonly functionEndpoint: string;
  /**
   * Deploys compositor as the chart renders it with e2e/values.yaml plus these values (replacing any running one),
   * and resolves once it is ready.
   */
  deploy(values?: ChartValues): Promise<void>;
  /** Ends compositor abruptly, as SIGKILL or a lost node would; it stays down until the next deploy(). */
  kill(): Promise<void>;
  /** The last lines compositor logged, for failure messages. */
  logs(lines?: number): Promise<string>;
  close(): Promise<void>;
}
