import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { CustomResourceDefinition } from './crd.js';

import { packageRoot } from './packageRoot.js';

/** The CRD manifests ship once, in the source tree, for both tsx and built runs (and the Helm chart copies them). */
export function crdsDir(): string {
  return join(packageRoot(), 'src', 'apis', 'crds');
}

/** Reads compositor's CRDs in a stable (file name) order. */
export async function loadCrds(dir: string = crdsDir()): Promise<CustomResourceDefinition[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.yaml')).sort();
  const crds: CustomResourceDefinition[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`cannot parse CRD file "${file}": ${doc.errors[0]?.message ?? ''}`);
      crds.push(doc.toJS() as CustomResourceDefinition);
    }
  }
  return crds;
}
