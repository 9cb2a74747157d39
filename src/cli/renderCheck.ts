// The checks `crossplane render` makes before running anything: the Composition is a Pipeline for the XR's type,
// and every step's function is among the Functions given. Errors name the file at fault.
import type { JsonObject, PipelineStep } from '../functions/index.js';
import { RenderInputError } from './renderInputs.js';

export interface RenderFiles {
  xr: string;
  composition: string;
  functions: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function checkXr(xr: JsonObject, file: string): void {
  if (str(xr.apiVersion) === '' || str(xr.kind) === '' || str(obj(xr.metadata).name) === '') {
    throw new RenderInputError(`invalid composite resource "${file}": apiVersion, kind and metadata.name are required`);
  }
}

/** The Composition's pipeline, once it is known to fit the XR. */
function checkComposition(composition: JsonObject, xr: JsonObject, files: RenderFiles): PipelineStep[] {
  const where = `composition "${files.composition}"`;
  if (str(composition.kind) !== 'Composition') throw new RenderInputError(`invalid ${where}: kind is not Composition`);
  const spec = obj(composition.spec);
  const ref = obj(spec.compositeTypeRef);
  if (str(ref.apiVersion) !== str(xr.apiVersion) || str(ref.kind) !== str(xr.kind)) {
    throw new RenderInputError(
      `invalid ${where}: compositeTypeRef ${str(ref.apiVersion)} ${str(ref.kind)} does not match the composite resource's ${str(xr.apiVersion)} ${str(xr.kind)}`,
    );
  }
  const mode = str(spec.mode);
  if (mode !== '' && mode !== 'Pipeline')
    throw new RenderInputError(`invalid ${where}: mode ${mode} is not supported, only Pipeline`);
  if (!Array.isArray(spec.pipeline)) throw new RenderInputError(`invalid ${where}: spec.pipeline is required`);
  return spec.pipeline as unknown as PipelineStep[];
}

function checkSelector(composition: JsonObject, xr: JsonObject, files: RenderFiles): void {
  const wanted = obj(obj(obj(xr.spec).crossplane).compositionSelector ?? obj(xr.spec).compositionSelector).matchLabels;
  const labels = obj(obj(composition.metadata).labels);
  for (const [key, value] of Object.entries(obj(wanted))) {
    if (labels[key] !== value) {
      throw new RenderInputError(
        `invalid composition "${files.composition}": it lacks label ${key}=${str(value)} that the composite resource's compositionSelector requires`,
      );
    }
  }
}

const FUNCTION_API_VERSIONS = new Set(['pkg.crossplane.io/v1', 'pkg.crossplane.io/v1beta1']);

function checkFunctions(functions: readonly JsonObject[], steps: readonly PipelineStep[], files: RenderFiles): void {
  for (const fn of functions) {
    if (!FUNCTION_API_VERSIONS.has(str(fn.apiVersion)) || str(fn.kind) !== 'Function') {
      throw new RenderInputError(
        `invalid functions "${files.functions}": ${str(fn.apiVersion)} ${str(fn.kind)} is not a pkg.crossplane.io Function`,
      );
    }
  }
  const names = new Set(functions.map((fn) => str(obj(fn.metadata).name)));
  for (const step of steps) {
    const name = str(obj(step.functionRef).name);
    if (!names.has(name)) {
      throw new RenderInputError(
        `invalid functions "${files.functions}": no Function "${name}" for pipeline step "${str(step.step)}"`,
      );
    }
  }
}

/** Checks the inputs against each other and returns the pipeline to run. */
export function checkRenderInputs(
  inputs: { xr: JsonObject; composition: JsonObject; functions: readonly JsonObject[] },
  files: RenderFiles,
): PipelineStep[] {
  checkXr(inputs.xr, files.xr);
  const steps = checkComposition(inputs.composition, inputs.xr, files);
  checkSelector(inputs.composition, inputs.xr, files);
  checkFunctions(inputs.functions, steps, files);
  return steps;
}
