import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { CustomResourceDefinition } from './crd.js';

import { packageRoot } from './packageRoot.js';

/** The CRD manifests ship once, in the source tree, for both tsx and built runs (and the Helm chart copies them). */
export function crdsDir(): string {
  return join(packageRoot(), 'src', 'apis', 'crds');
}

/**
 * Marks a CRD that only an optional feature serves (the nop provider): `compositor start` installs it only when
 * that feature is on, so a cluster without the feature gets no API nobody reconciles.
 */
export const CRD_FEATURE_LABEL = 'compositor.crossplane.io/feature';

/**
 * Reads compositor's CRDs in a stable (file name) order: those every start installs, or with `feature` only the
 * ones labelled for that feature (CRD_FEATURE_LABEL).
 */
export async function loadCrds(dir: string = crdsDir(), feature?: string): Promise<CustomResourceDefinition[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.yaml')).sort();
  const crds: CustomResourceDefinition[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`cannot parse CRD file "${file}": ${doc.errors[0]?.message ?? ''}`);
      const crd = doc.toJS() as CustomResourceDefinition;
      if (crd.metadata.labels?.[CRD_FEATURE_LABEL] === feature) crds.push(crd);
    }
  }
  return crds;
}
