import { expect } from 'chai';
import { copyFileSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeconfigError, loadKubeConfig } from '../../../src/kube/index.js';

function kubeconfigFile(dir: string, server: string): string {
  const file = join(dir, `kubeconfig-${server.replace(/\W/g, '')}`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "${server}"}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  return file;
}

describe('kube/loadKubeConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'compositor-kubeconfig-'));
  const emptyHome = mkdtempSync(join(tmpdir(), 'compositor-home-'));
  const flagFile = kubeconfigFile(dir, 'https://flag:6443');
  const envFile = kubeconfigFile(dir, 'https://env:6443');
  const home = mkdtempSync(join(tmpdir(), 'compositor-home-'));
  mkdirSync(join(home, '.kube'));
  copyFileSync(kubeconfigFile(dir, 'https://home:6443'), join(home, '.kube', 'config'));

  const cases: Record<string, { reason: string; source: Parameters<typeof loadKubeConfig>[0]; server: string }> = {
    flag: {
      reason: '--kubeconfig wins over everything',
      source: { path: flagFile, env: { KUBECONFIG: envFile }, home },
      server: 'https://flag:6443',
    },
    env: {
      reason: '$KUBECONFIG wins over the home directory',
      source: { env: { KUBECONFIG: envFile }, home },
      server: 'https://env:6443',
    },
    'env list': {
      reason: 'the first file of a $KUBECONFIG list is used',
      source: { env: { KUBECONFIG: `${envFile}:${flagFile}` }, home },
      server: 'https://env:6443',
    },
    home: { reason: '~/.kube/config when nothing else is set', source: { env: {}, home }, server: 'https://home:6443' },
  };
  for (const [name, { reason, source, server }] of Object.entries(cases)) {
    it(`finds the ${name} kubeconfig (${reason})`, () => {
      expect(loadKubeConfig(source).getCurrentCluster()?.server, reason).to.equal(server);
    });
  }

  it('names the missing file and where it came from', () => {
    expect(() => loadKubeConfig({ path: '/no/such/file', env: {}, home: emptyHome }))
      .to.throw(KubeconfigError)
      .with.property('message', 'kubeconfig "/no/such/file" from --kubeconfig does not exist');
  });

  it('never falls back to an unauthenticated localhost when nothing is found', () => {
    expect(() => loadKubeConfig({ env: {}, home: emptyHome }))
      .to.throw(KubeconfigError)
      .with.property('message')
      .that.includes('no kubeconfig found');
  });

  it('rejects a kubeconfig without a current cluster', () => {
    const file = join(dir, 'no-context');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n');
    expect(() => loadKubeConfig({ path: file, env: {}, home: emptyHome }))
      .to.throw(KubeconfigError)
      .with.property('message')
      .that.includes('has no current context');
  });
});
