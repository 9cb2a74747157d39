import type { ObjectMeta } from './meta.js';

/** The parts of an apiextensions.k8s.io/v1 CustomResourceDefinition that compositor reads or writes. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** A CRD's spec.names (CustomResourceDefinitionNames), the form an XRD's names and claimNames take too. */
export interface CrdNames {
  kind: string;
  plural: string;
  singular?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}
