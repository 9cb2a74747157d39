// Shared in-memory fakes for unit tests: an API server (KubeClient and Discovery), informers, a function runner.
export { apiError, CORE_KINDS, FakeApiServer, type Change, type FakeKind, type RecordedRequest } from './apiServer.js';
export { FakeInformer, FakeInformers } from './informers.js';
export { FakeRunner } from './runner.js';
export { eventLines, rejection, requestLines, until } from './helpers.js';
