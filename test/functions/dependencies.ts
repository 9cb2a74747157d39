// The alpha `dependencies` field of the function protocol for test functions served with the official TypeScript
// SDK. The SDK's generated messages predate the field, so its RunFunctionResponse encoder is extended here to write
// field 8 (Dependencies: items = 1, each a Dependency with resource = 1 and either composed_resource = 2 or
// required_resource = 4, a RequiredResourceDependency with requirement_name = 1, name = 2, namespace = 3), the wire
// form of upstream's ordering prototype. Importing this module installs the extension once.
import { RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';

/** One edge: `resource` depends on another composed resource, or on what a requirement matched. */
export type Dependency =
  | { resource: string; dependsOn: string }
  | { resource: string; requirement: string; name?: string; namespace?: string };

/** The set each response declares, by response object (the SDK's type has no field for it). */
const declared = new WeakMap<object, readonly Dependency[]>();

const encode = RunFunctionResponse.encode.bind(RunFunctionResponse);
type Writer = ReturnType<typeof encode>;

function writeRequired(out: Writer, d: { requirement: string; name?: string; namespace?: string }): void {
  out.uint32((4 << 3) | 2).fork();
  out.uint32((1 << 3) | 2).string(d.requirement);
  if (d.name !== undefined) out.uint32((2 << 3) | 2).string(d.name);
  if (d.namespace !== undefined) out.uint32((3 << 3) | 2).string(d.namespace);
  out.join();
}

RunFunctionResponse.encode = (message, writer?: Writer): Writer => {
  const out = encode(message, writer);
  const set = declared.get(message);
  if (set === undefined) return out;
  out.uint32((8 << 3) | 2).fork();
  for (const d of set) {
    out.uint32((1 << 3) | 2).fork();
    out.uint32((1 << 3) | 2).string(d.resource);
    if ('dependsOn' in d) out.uint32((2 << 3) | 2).string(d.dependsOn);
    else writeRequired(out, d);
    out.join();
  }
  out.join();
  return out;
};

/** Makes `response` declare exactly `set` (an empty set erases what earlier steps declared). */
export function declareDependencies(response: object, set: readonly Dependency[]): void {
  declared.set(response, set);
}
