import { expect } from 'chai';
import { targetHost } from '../../../src/functions/index.js';

describe('functions/grpcRunner targetHost', () => {
  const cases: Record<string, { reason: string; target: string; want: string }> = {
    'dns scheme': {
      reason: "a Service's status.endpoint verifies as the Service's DNS name",
      target: 'dns:///function-kcl.crossplane-system:9443',
      want: 'function-kcl.crossplane-system',
    },
    'dns scheme with an authority': {
      reason: 'the DNS server is not the host',
      target: 'dns://10.0.0.10/fn.ns:9443',
      want: 'fn.ns',
    },
    'host and port': { reason: 'a port is not a scheme', target: 'localhost:9443', want: 'localhost' },
    'ipv4 scheme': { reason: 'the address is the host', target: 'ipv4:127.0.0.1:9443', want: '127.0.0.1' },
    'no port': { reason: 'nothing to strip', target: 'fn.ns', want: 'fn.ns' },
  };
  for (const [name, { reason, target, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(targetHost(target), reason).to.equal(want);
    });
  }
});
