/** The parts of an apiextensions.k8s.io/v1 CustomResourceDefinition that compositor reads or writes. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
    ownerReferences?: OwnerReference[];
  };
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** metadata.ownerReferences[]: the fields every owner reference compositor writes or reads carries. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}
