import { expect } from 'chai';
import { providerEnvironment } from '../../../src/cli/environment.js';
import { runProgram, type CommandHandlers } from '../../../src/cli/program.js';
import type { ProviderNopOptions } from '../../../src/cli/providerNop.js';

// `compositor provider nop`: its flags and their defaults (the ports the provider's Deployment declares), and what it
// reads of the environment the package runtime gives it.
async function run(argv: string[]): Promise<{ code: number; options: ProviderNopOptions | undefined; stderr: string }> {
  let options: ProviderNopOptions | undefined;
  let stderr = '';
  const handlers: CommandHandlers = {
    start: () => Promise.resolve(0),
    dev: () => Promise.resolve(0),
    providerNop: (given) => {
      options = given;
      return Promise.resolve(0);
    },
  };
  const code = await runProgram(argv, handlers, {
    writeOut: () => undefined,
    writeErr: (text) => (stderr += text),
  });
  return { code, options, stderr };
}

describe('cli/provider nop', () => {
  it("defaults to the Deployment's ports: metrics 8080, webhooks 9443, probes 8081", async () => {
    const { code, options } = await run(['provider', 'nop']);
    expect(code).to.equal(0);
    expect(options).to.deep.equal({
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      webhookBindAddress: ':9443',
      pollIntervalMs: 60_000,
      logLevel: 'info',
    });
  });

  it('takes a kubeconfig, addresses and a poll interval', async () => {
    const argv = ['provider', 'nop', '--kubeconfig', '/k', '--webhook-bind-address', '127.0.0.1:0'];
    const { options } = await run([...argv, '--poll-interval', '30s', '--metrics-bind-address', '0']);
    expect(options).to.include({
      kubeconfig: '/k',
      webhookBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      pollIntervalMs: 30_000,
    });
  });

  it('refuses a poll interval that is not a duration, as a usage error', async () => {
    const { code, options, stderr } = await run(['provider', 'nop', '--poll-interval', 'soon']);
    expect(code).to.equal(2);
    expect(options).to.equal(undefined);
    expect(stderr).to.include('soon');
  });

  it("reads the package runtime's environment; the older WEBHOOK_TLS_CERT_DIR names the server directory too", () => {
    expect(
      providerEnvironment({
        POD_NAMESPACE: 'crossplane-system',
        PROVIDER_NAME: 'provider-nop',
        REVISION_NAME: 'provider-nop-abc',
        REVISION_UID: 'u1',
        TLS_SERVER_CERTS_DIR: '/tls/server',
        TLS_CLIENT_CERTS_DIR: '/tls/client',
      }),
    ).to.deep.equal({
      podNamespace: 'crossplane-system',
      providerName: 'provider-nop',
      revisionName: 'provider-nop-abc',
      revisionUid: 'u1',
      tlsServerCertsDir: '/tls/server',
      tlsClientCertsDir: '/tls/client',
    });
    expect(providerEnvironment({ WEBHOOK_TLS_CERT_DIR: '/old', TLS_CLIENT_CERTS_DIR: '' })).to.include({
      tlsServerCertsDir: '/old',
      tlsClientCertsDir: undefined,
    });
  });
});
