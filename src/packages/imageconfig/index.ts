// imageconfig: Crossplane's ImageConfigs for package pulls: which one applies to an image (longest prefix), the
// rewritten reference, the pull secret and the verification it adds, what is recorded of them, and where they are read.
export * from './types.js';
export { affectsPulls, bestMatch, longestPrefix, matchesAny, type Purpose } from './match.js';
export { ImageConfigError, resolveImage, resolveSource, runtimeImageOf, type ImageResolution } from './resolve.js';
export { ImageConfigStore, type ImageConfigSource, type ImageConfigStoreOptions } from './store.js';
export { appliedRefsField, VERIFICATION_SKIPPED, VERIFIED, verificationCondition } from './status.js';
export { imageConfigKeys } from './watch.js';
