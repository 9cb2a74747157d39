// crank's --required-schemas (crossplane/cli cmd/crossplane/render/schemas.go, LoadRequiredSchemas): a directory
// of OpenAPI v3 documents, one per group-version as the API server serves them at
// /openapi/v3/apis/<group>/<version>, that required schemas are answered from instead of a cluster.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../base/index.js';
import type { OpenApiDocument } from '../composite/index.js';
import { RenderInputError } from './renderInputs.js';

/** The `*.json` files under `dir`, at any depth, in the order Go's fs.WalkDir visits them (by name, depth first). */
async function jsonFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await jsonFiles(path)));
    else if (entry.name.endsWith('.json')) files.push(path);
  }
  return files;
}

/**
 * Every `*.json` file under the directory, parsed; a problem, or no such file at all, is one error naming the
 * directory with crank's words for it.
 *
 * @example await readSchemaDocuments('schemas/') // [{ components: { schemas: { ... } } }, ...]
 */
export async function readSchemaDocuments(dir: string): Promise<OpenApiDocument[]> {
  const fail = (detail: string, cause?: unknown): RenderInputError =>
    new RenderInputError(`cannot load required schemas from "${dir}": ${detail}`, { cause });
  const files = await jsonFiles(dir).catch((err: unknown) => {
    throw fail(`cannot walk directory: ${errorMessage(err)}`, err);
  });
  if (files.length === 0) throw fail(`no JSON files found in "${dir}"`);
  const documents: OpenApiDocument[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch((err: unknown) => {
      throw fail(`cannot read file "${file}": ${errorMessage(err)}`, err);
    });
    try {
      documents.push(JSON.parse(text) as OpenApiDocument);
    } catch (err) {
      throw fail(`cannot parse OpenAPI JSON from "${file}": ${errorMessage(err)}`, err);
    }
  }
  return documents;
}
