// What crank's shared render flags add to a pipeline, for `compositor render` and `compositor operation render`
// alike (crossplane/cli cmd/crossplane/render/xr/cmd.go and op/cmd.go take the same five): the context the first
// step starts from, annotations set on every Function, the Secrets steps' credentials name and the OpenAPI
// documents required schemas are served from. Each is read before any function runs, so a bad input fails alone.
import type { OpenApiDocument } from '../composite/index.js';
import type { JsonObject, PipelineDeps } from '../functions/index.js';
import { withFunctionAnnotations } from './renderAnnotations.js';
import { initialContext, keyValue } from './renderContext.js';
import { secretGetter } from './renderCredentials.js';
import { readObjects } from './renderInputs.js';
import { readSchemaDocuments } from './renderSchemas.js';

/** The flags as given; absent and empty mean the same. */
export interface PipelineInputFlags {
  /** --context-files, each `key=path`: context values read from JSON or YAML files. */
  contextFiles?: string[];
  /** --context-values, each `key=value`: context values as JSON or YAML; they win over --context-files. */
  contextValues?: string[];
  /** --function-credentials: YAML file or directory of the Secrets steps' credentials name. */
  functionCredentials?: string;
  /** -a, each `key=value`: an annotation set on every Function, in place of the file's. */
  functionAnnotations?: string[];
  /** --required-schemas: a directory of OpenAPI v3 documents (JSON) that required schemas are served from. */
  requiredSchemas?: string;
}

/** What the flags make of the Functions file and the pipeline's starting point. */
export interface PipelineInputs {
  /** The context the first step gets (empty without --context-files and --context-values). */
  context: JsonObject;
  /** The Functions read, with the -a annotations set. */
  functions: JsonObject[];
  schemas: OpenApiDocument[];
  getSecret: NonNullable<PipelineDeps['getSecret']>;
}

function pairs(list: readonly string[] | undefined, flag: string): Record<string, string> {
  return Object.fromEntries((list ?? []).map((text) => keyValue(text, flag)));
}

/**
 * Reads the Functions file and everything the flags name; a problem is a RenderInputError of one line.
 *
 * @example const { functions, context } = await readPipelineInputs('functions.yaml', { contextValues: ['k=1'] });
 */
export async function readPipelineInputs(functionsPath: string, flags: PipelineInputFlags): Promise<PipelineInputs> {
  const context = await initialContext(
    pairs(flags.contextFiles, '--context-files'),
    pairs(flags.contextValues, '--context-values'),
  );
  const functions = withFunctionAnnotations(
    await readObjects(functionsPath, 'functions'),
    flags.functionAnnotations ?? [],
  );
  const schemas = flags.requiredSchemas ? await readSchemaDocuments(flags.requiredSchemas) : [];
  const secrets = flags.functionCredentials ? await readObjects(flags.functionCredentials, 'function credentials') : [];
  return { context, functions, schemas, getSecret: secretGetter(secrets) };
}
