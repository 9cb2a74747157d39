// The check upstream makes of every composed resource's name before it records resource references or applies
// anything (crossplane internal/names/validate.go ValidateName, called by the function composer since
// crossplane#6535 and #6689), with the error text render prints for it. The check itself is the engine's.
import { isValidComposedName } from '../composite/index.js';
import type { JsonObject } from '../functions/index.js';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * Throws upstream's compose error for the first composed resource (by composition resource name) whose name is not
 * valid; the text is the one crossplane#6704 quotes from the composer.
 */
export function checkComposedNames(composed: readonly JsonObject[], resourceNames: readonly string[]): void {
  composed.forEach((object, i) => {
    const metadata = object.metadata as JsonObject | undefined;
    const name = str(metadata?.name);
    if (isValidComposedName(name, str(object.apiVersion), str(object.kind))) return;
    throw new Error(
      `cannot compose resources: cannot apply composed resource "${resourceNames[i] ?? ''}" because it has an invalid name "${name}". Must be a valid RFC 1123 subdomain name.`,
    );
  });
}
