// The kind target, for users with a container engine (this project's CI machine has none): the chart installed
// with `helm upgrade --install` into the cluster of E2E_KUBECONFIG, compositor running from the image that
// `npm run e2e:kind` built and loaded, and the e2e function on this machine where the cluster reaches it
// (E2E_FUNCTION_HOST, the kind network's gateway by default). Scenarios are exactly those of the local target.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../../test/functions/process.js';
import { ControlPlane } from '../controlplane/index.js';
import { CHART_DIR, helm, RELEASE, RELEASE_NAMESPACE, valuesArgs, type ChartValues } from './chart.js';
import { CONFIGMAPS_FUNCTION } from './functions.js';
import type { E2eTarget } from './target.js';

const SELECTOR = `app.kubernetes.io/name=compositor,app.kubernetes.io/instance=${RELEASE}`;
const PODS = `/api/v1/namespaces/${RELEASE_NAMESPACE}/pods`;

export class KindTarget implements E2eTarget {
  private constructor(
    private readonly kubeconfig: string,
    readonly client: KubeClient,
    private readonly fn: FunctionProcess,
    readonly functionEndpoint: string,
  ) {}

  static async start(env: NodeJS.ProcessEnv = process.env): Promise<KindTarget> {
    const kubeconfig = env.E2E_KUBECONFIG;
    const host = env.E2E_FUNCTION_HOST;
    if (!kubeconfig || !host) {
      throw new Error('the kind target needs E2E_KUBECONFIG and E2E_FUNCTION_HOST (npm run e2e:kind sets both)');
    }
    const plane = await ControlPlane.start({ env });
    const fn = await startFunction(CONFIGMAPS_FUNCTION, undefined, '0.0.0.0');
    const port = fn.endpoint.slice(fn.endpoint.lastIndexOf(':') + 1);
    return new KindTarget(kubeconfig, plane.client(), fn, `${host}:${port}`);
  }

  async deploy(values: ChartValues = {}): Promise<void> {
    const image = process.env.E2E_IMAGE ?? 'compositor:e2e';
    const [repository, tag] = image.split(':');
    const dir = mkdtempSync(join(tmpdir(), 'compositor-kind-'));
    try {
      await helm([
        'upgrade',
        '--install',
        RELEASE,
        CHART_DIR,
        '--kubeconfig',
        this.kubeconfig,
        '--namespace',
        RELEASE_NAMESPACE,
        '--create-namespace',
        ...valuesArgs({ ...values, image: { repository, tag: tag ?? 'latest', pullPolicy: 'Never' } }, dir),
        '--wait',
        '--timeout',
        '3m',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Deletes compositor's pods without a grace period; the Deployment starts new ones, deploy() waits for them. */
  async kill(): Promise<void> {
    const pods = await this.client.request<{ items: { metadata: { name: string } }[] }>('GET', PODS, {
      query: { labelSelector: SELECTOR },
    });
    for (const pod of pods.items) {
      await this.client.request('DELETE', `${PODS}/${pod.metadata.name}`, { body: { gracePeriodSeconds: 0 } });
    }
  }

  async logs(lines = 60): Promise<string> {
    const pods = await this.client.request<{ items: { metadata: { name: string } }[] }>('GET', PODS, {
      query: { labelSelector: SELECTOR },
    });
    const texts = await Promise.all(
      pods.items.map((pod) =>
        this.client
          .request<string>('GET', `${PODS}/${pod.metadata.name}/log`, { query: { tailLines: lines } })
          .catch((err: unknown) => `(no log: ${String(err)})`),
      ),
    );
    return texts.join('\n');
  }

  async close(): Promise<void> {
    await this.fn.stop();
  }
}
