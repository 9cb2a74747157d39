// crank's -a/--function-annotations (crossplane/cli cmd/crossplane/render, OverrideFunctionAnnotations): annotations
// set on every Function before it is placed, so that one flag points them all somewhere else, e.g.
// `-a render.crossplane.io/runtime-development-target=localhost:9444`.
import type { JsonObject } from '../functions/index.js';
import { RenderInputError } from './renderInputs.js';

/**
 * The Functions with each `key=value` set as an annotation, in place of any the file gives. The Functions read are
 * left as they are.
 */
export function withFunctionAnnotations(
  functions: readonly JsonObject[],
  annotations: readonly string[],
): JsonObject[] {
  const overrides: Record<string, string> = {};
  for (const annotation of annotations) {
    const at = annotation.indexOf('=');
    if (at < 0) {
      throw new RenderInputError(
        `cannot apply function annotation overrides: invalid function annotation format "${annotation}", expected key=value`,
      );
    }
    overrides[annotation.slice(0, at)] = annotation.slice(at + 1);
  }
  if (annotations.length === 0) return [...functions];
  return functions.map((fn) => {
    const metadata = (fn.metadata ?? {}) as JsonObject;
    const own = (metadata.annotations ?? {}) as Record<string, string>;
    return { ...fn, metadata: { ...metadata, annotations: { ...own, ...overrides } } };
  });
}
