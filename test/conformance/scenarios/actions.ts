// The scripted actions scenarios describe in prose. Each known form is a pattern; prose that matches none is an
// error naming it, so a new action in the corpus fails loudly instead of being skipped.
import { setValue } from '../../../src/functions/builtin/fieldpath.js';
import { CONTENT_TYPE } from '../../../src/kube/index.js';
import type { ScenarioCluster } from './cluster.js';

interface Action {
  pattern: RegExp;
  run(match: RegExpExecArray, cluster: ScenarioCluster): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const ACTIONS: Action[] = [
  {
    // "server-side apply ConfigMap default/name with data.counter="<i>" for i in 0..59, 50ms apart (...)"
    pattern: /^server-side apply (\w+) ([\w.-]+)\/([\w.-]+) with ([\w.]+)="<i>" for i in (\d+)\.\.(\d+), (\d+)ms apart/,
    async run(match, cluster) {
      const [, kind = '', namespace = '', name = '', path = '', from = '0', to = '0', gapMs = '0'] = match;
      const info = await cluster.kinds.resolveKind(kind);
      const url = await cluster.kinds.path({ apiVersion: info.apiVersion, kind, metadata: { name, namespace } });
      for (let i = Number(from); i <= Number(to); i++) {
        const body: Record<string, unknown> = { apiVersion: info.apiVersion, kind, metadata: { name, namespace } };
        setValue(body, path, String(i));
        await cluster.client.request('PATCH', url, {
          body,
          contentType: CONTENT_TYPE.apply,
          query: { fieldManager: 'conformance-action', force: true },
        });
        await sleep(Number(gapMs));
      }
    },
  },
];

export async function runAction(prose: string, cluster: ScenarioCluster): Promise<void> {
  for (const action of ACTIONS) {
    const match = action.pattern.exec(prose);
    if (match) {
      await action.run(match, cluster);
      return;
    }
  }
  throw new Error(`unsupported action: ${prose}`);
}
