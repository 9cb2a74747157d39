import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/apis/index.js';

export type Component = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'helm' | 'registry' | 'crane';

/**
 * Paths of the control plane binaries. KUBEBUILDER_ASSETS (a directory holding them, as envtest uses) wins;
 * otherwise build.sh builds missing ones from their Go modules at pinned versions and reports the cached paths.
 */
export async function resolveBinaries(
  components: readonly Component[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<Component, string>> {
  const found: Partial<Record<Component, string>> = {};
  const missing: Component[] = [];
  for (const component of components) {
    const asset = env.KUBEBUILDER_ASSETS ? join(env.KUBEBUILDER_ASSETS, component) : undefined;
    if (asset && existsSync(asset)) found[component] = asset;
    else missing.push(component);
  }
  if (missing.length > 0) Object.assign(found, await build(missing));
  return found as Record<Component, string>;
}

function build(components: readonly Component[]): Promise<Partial<Record<Component, string>>> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [buildScriptPath(), ...components], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(
          new Error(
            `building ${components.join(', ')} failed (exit ${code}); see the output of ${buildScriptPath()} above`,
          ),
        );
        return;
      }
      const paths: Partial<Record<Component, string>> = {};
      for (const line of stdout.trim().split('\n')) {
        const [component, path] = line.split(' ');
        if (component && path) paths[component as Component] = path;
      }
      resolve(paths);
    });
  });
}

function buildScriptPath(): string {
  return join(packageRoot(), 'e2e', 'controlplane', 'build.sh');
}
