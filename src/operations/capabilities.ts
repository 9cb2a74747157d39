// The capability check an Operation's pipeline passes before any function runs (Crossplane's
// internal/xfn/capabilities.go RevisionCapabilityChecker): every function's active revision must declare the
// "operation" capability in its package metadata. A function without an active revision passes, as upstream.

/** The package capability an Operation's functions must declare (apis/pkg/meta/v1/capabilities.go). */
export const OPERATION_CAPABILITY = 'operation';

/** The active revision of a Function, as far as the check reads it. */
export interface ActiveRevision {
  name: string;
  capabilities: readonly string[];
}

/** Finds the active FunctionRevision of a Function (by its parent-package label); undefined when it has none. */
export type ActiveRevisionLookup = (functionName: string, signal: AbortSignal) => Promise<ActiveRevision | undefined>;

/** Whether a revision lists the capability: exactly as written, as internal/xfn/capabilities.go compares them. */
export function hasCapability(capabilities: readonly string[], wanted: string): boolean {
  return capabilities.includes(wanted);
}

/**
 * Undefined when every named function may run in an Operation; otherwise Crossplane's message for the first one that
 * may not (function names in pipeline order, each looked up once).
 */
export async function missingCapability(
  functionNames: readonly string[],
  lookup: ActiveRevisionLookup,
  signal: AbortSignal,
): Promise<string | undefined> {
  for (const name of new Set(functionNames)) {
    const revision = await lookup(name, signal);
    if (revision === undefined || hasCapability(revision.capabilities, OPERATION_CAPABILITY)) continue;
    return `function "${name}" (active revision "${revision.name}") is missing required capabilities: ${OPERATION_CAPABILITY}`;
  }
  return undefined;
}
