import type { PackageKind } from './schemes.js';

/** One object of a package's YAML stream, as parsed: unknown fields are kept. */
export interface PackageObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** A package's metadata object (meta.pkg.crossplane.io Provider, Configuration or Function). */
export interface PackageMeta extends PackageObject {
  kind: PackageKind;
  spec?: {
    crossplane?: { version?: unknown };
    dependsOn?: unknown[];
    capabilities?: string[];
    [field: string]: unknown;
  };
}

/** What the parser makes of package.yaml: the metadata objects and the other objects, each in stream order. */
export interface ParsedPackage {
  meta: PackageMeta[];
  objects: PackageObject[];
}
