// crank's --required-schemas (crossplane/cli cmd/crossplane/render): a directory of OpenAPI v3 documents, one per
// group-version as the API server serves them at /openapi/v3/apis/<group>/<version>, that required schemas are
// answered from instead of a cluster.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../base/index.js';
import type { OpenApiDocument } from '../composite/index.js';
import { RenderInputError } from './renderInputs.js';

/** Every `*.json` file in the directory, in name order, parsed; a problem is one error naming the directory. */
export async function readSchemaDocuments(dir: string): Promise<OpenApiDocument[]> {
  const fail = (detail: string, cause: unknown): RenderInputError =>
    new RenderInputError(`cannot load required schemas from "${dir}": ${detail}`, { cause });
  const names = await readdir(dir).catch((err: unknown) => {
    throw fail(errorMessage(err), err);
  });
  const documents: OpenApiDocument[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const text = await readFile(join(dir, name), 'utf8').catch((err: unknown) => {
      throw fail(errorMessage(err), err);
    });
    try {
      documents.push(JSON.parse(text) as OpenApiDocument);
    } catch (err) {
      throw fail(`${name}: ${errorMessage(err)}`, err);
    }
  }
  return documents;
}
