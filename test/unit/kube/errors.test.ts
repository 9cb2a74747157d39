import { expect } from 'chai';
import { ApiError, serverMessage } from '../../../src/kube/index.js';

describe('kube/serverMessage', () => {
  const invalid =
    'CustomResourceDefinition.apiextensions.k8s.io "xapps.example.org" is invalid: spec.names.plural: Required value';
  const cases: Record<string, { reason: string; err: unknown; want: string }> = {
    status: {
      reason: "the Status object's message, without the request line the client puts in front",
      err: new ApiError(422, 'Invalid', `PATCH /apis/x: ${invalid}`, { kind: 'Status', message: invalid }),
      want: invalid,
    },
    noBody: {
      reason: 'an ApiError without a Status body keeps its own message',
      err: new ApiError(503, '', 'PATCH /apis/x: HTTP 503'),
      want: 'PATCH /apis/x: HTTP 503',
    },
    emptyMessage: {
      reason: 'a Status without a message falls back to the error message',
      err: new ApiError(500, '', 'PATCH /apis/x: HTTP 500', { kind: 'Status', message: '' }),
      want: 'PATCH /apis/x: HTTP 500',
    },
    other: { reason: 'any other error gives its message', err: new Error('socket hang up'), want: 'socket hang up' },
  };
  for (const [name, { reason, err, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(serverMessage(err), reason).to.equal(want);
    });
  }
});
