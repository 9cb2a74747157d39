// package.yaml as Crossplane's parser reads it (crossplane-runtime pkg/xpkg/parser/parser.go): a YAML stream whose
// empty documents are skipped; each other document is a metadata object if the meta scheme knows its kind, else an
// object if the object scheme knows it, else the parse fails. Messages follow the Kubernetes decoder's.
import { parseAllDocuments } from 'yaml';
import { PackageParseError } from './errors.js';
import { isMetaKind, isObjectKind } from './schemes.js';
import type { PackageMeta, PackageObject, ParsedPackage } from './types.js';

/**
 * Parses a package stream.
 *
 * @example parsePackage('apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n')
 * // { meta: [{ apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Provider', metadata: { name: 'p' } }], objects: [] }
 */
export function parsePackage(stream: string): ParsedPackage {
  const parsed: ParsedPackage = { meta: [], objects: [] };
  const documents = parseAllDocuments(stream, { prettyErrors: false });
  const list = Array.isArray(documents) ? documents : [documents];
  list.forEach((document, index) => {
    const position = `document ${index + 1} of package.yaml`;
    const [error] = document.errors;
    if (error !== undefined) {
      throw new PackageParseError(`error converting YAML to JSON: ${position}: ${error.message}`);
    }
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    const object = typedObject(value, position);
    if (isMetaKind(object.apiVersion, object.kind)) parsed.meta.push(object as PackageMeta);
    else if (isObjectKind(object.apiVersion, object.kind)) parsed.objects.push(object);
    else {
      throw new PackageParseError(
        `no kind "${object.kind}" is registered for version "${object.apiVersion}" (${position})`,
      );
    }
  });
  return parsed;
}

function typedObject(value: unknown, position: string): PackageObject {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) {
    throw new PackageParseError(`couldn't get version/kind; json parse error: ${position} is not an object`);
  }
  const object = value as Record<string, unknown>;
  if (typeof object.kind !== 'string' || object.kind === '') {
    throw new PackageParseError(`Object 'Kind' is missing in ${position}`);
  }
  if (typeof object.apiVersion !== 'string' || object.apiVersion === '') {
    throw new PackageParseError(`Object 'apiVersion' is missing in ${position}`);
  }
  return object as PackageObject;
}
