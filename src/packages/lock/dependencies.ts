// A package's spec.dependsOn as Lock dependencies, as Crossplane's revision dependency manager copies them: the
// package address from `configuration`, `provider`, `function` or `package` (with `apiVersion` and `kind`), the
// version as the constraint.
import type { PackageMeta } from '../xpkg/index.js';
import type { Dependency, PackageType } from './types.js';

const TYPED: readonly [key: string, type: PackageType][] = [
  ['configuration', 'Configuration'],
  ['provider', 'Provider'],
  ['function', 'Function'],
];

/** The metadata's dependencies; an entry naming no package is an error, as it makes no package to install. */
export function dependenciesOf(meta: PackageMeta): Dependency[] {
  return (meta.spec?.dependsOn ?? []).map((entry, i) => {
    const dep = (entry ?? {}) as Record<string, unknown>;
    const constraints = typeof dep.version === 'string' ? dep.version : '';
    for (const [key, type] of TYPED) {
      if (typeof dep[key] === 'string') return { package: dep[key], type, constraints };
    }
    if (typeof dep.package === 'string' && typeof dep.apiVersion === 'string' && typeof dep.kind === 'string') {
      return { package: dep.package, apiVersion: dep.apiVersion, kind: dep.kind, constraints };
    }
    throw new Error(
      `cannot read dependency ${i} of the package metadata: it names no configuration, provider, function or package`,
    );
  });
}

/** The package type of a dependency or a Lock package: its type, else the one its kind names. */
export function typeOf(dep: Pick<Dependency, 'type' | 'apiVersion' | 'kind'>): PackageType | undefined {
  if (dep.type !== undefined) return dep.type;
  if (dep.apiVersion?.startsWith('pkg.crossplane.io/') !== true) return undefined;
  return TYPED.find(([, type]) => type === dep.kind)?.[1];
}
