import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// What the built CLI does at start (bin/compositor.js): the hook, then compositor's client modules. Run in a child
// process, since a hook applies to the whole process and only to modules imported after it.
const SLIM = fileURLToPath(new URL('../../../src/kube/slimClientNode.ts', import.meta.url));
const KUBE = fileURLToPath(new URL('../../../src/kube/index.ts', import.meta.url));
// Every module the CLI's entry (src/cli/main.ts) imports, and so everything the built CLI loads.
const CLI = ['dev', 'diagnose', 'program', 'render', 'start', 'trace'].map((name) =>
  fileURLToPath(new URL(`../../../src/cli/${name}.ts`, import.meta.url)),
);

function run(withHook: boolean): { generated: number; authorization: string } {
  const script = `
    import { registerHooks } from 'node:module';
    const resolved = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); resolved.push(r.url); return r; } });
    if (${withHook}) (await import(${JSON.stringify(SLIM)})).registerSlimClientNode();
    const { KubeClient } = await import(${JSON.stringify(KUBE)});
    for (const module of ${JSON.stringify(CLI)}) await import(module);
    const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
    const { RequestContext } = await import('@kubernetes/client-node/dist/gen/http/http.js');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443' }],
      users: [{ name: 'u', token: 't0ken' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    new KubeClient(kc);
    const context = new RequestContext('https://127.0.0.1:6443/api', 'GET');
    await kc.applySecurityAuthentication(context);
    const generated = resolved.filter((u) => /client-node\\/dist\\/gen\\/(apis|models)\\//.test(u)).length;
    console.log(JSON.stringify({ generated, authorization: context.getHeaders().Authorization }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { generated: number; authorization: string };
}

describe('kube/slimClientNode', function () {
  this.timeout(60_000);

  it("keeps client-node's generated API clients out of the process, and KubeConfig authenticates as before", () => {
    const hooked = run(true);
    expect(hooked.generated, 'generated API modules loaded with the hook').to.equal(0);
    expect(hooked.authorization).to.equal('Bearer t0ken');
  });

  it('is what keeps them out: without the hook the same imports load them', () => {
    const plain = run(false);
    expect(plain.generated).to.be.greaterThan(100);
    expect(plain.authorization).to.equal('Bearer t0ken');
  });
});
