import type { ConnectionDetails } from '../types.js';

/** One resource of the nop provider's pretend external system. */
export interface NopExternalObject {
  fields: unknown;
  connectionDetails: ConnectionDetails;
  /** Milliseconds since the epoch, on the provider's clock. */
  createdAt: number;
  updatedAt: number;
}

/**
 * The nop provider's "external system": resources in memory, keyed by "<namespace>/<external name>" (each
 * namespace is like an account of its own), and cluster-scoped NopResources (nop.crossplane.io) by
 * "/<external name>", so the two kinds never share an external resource. It lives as long as the provider object,
 * so tests can restart the controller against the same system, look at what it holds, or change it behind
 * compositor's back (drift).
 */
export class NopExternalSystem {
  private readonly objects = new Map<string, NopExternalObject>();

  static key(namespace: string | undefined, externalName: string): string {
    return `${namespace ?? ''}/${externalName}`;
  }

  get(key: string): NopExternalObject | undefined {
    const object = this.objects.get(key);
    return object ? structuredClone(object) : undefined;
  }

  set(key: string, object: NopExternalObject): void {
    this.objects.set(key, structuredClone(object));
  }

  /** True when there was something to delete. */
  delete(key: string): boolean {
    return this.objects.delete(key);
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  get size(): number {
    return this.objects.size;
  }
}
