// A pipeline step served with the official TypeScript SDK that composes nothing: it passes the desired state on and
// declares the dependencies its input lists (./dependencies.ts writes them), requiring what its input asks for, so
// that a Composition whose resources come from patch-and-transform can order them.
// Started as a separate process: `tsx test/functions/dependency-function.ts --insecure --address 127.0.0.1:<port>`.
import { requireResource, serve, type ComposeFunction } from '@crossplane-org/function-sdk-typescript';
import { declareDependencies, type Dependency } from './dependencies.js';

export interface DependencyInput {
  apiVersion: string;
  kind: string;
  /** The whole set this step declares. */
  dependencies: Dependency[];
  /** Requirements by name: what an edge to a required resource names. */
  requirements?: Record<string, { apiVersion: string; kind: string; matchName: string; namespace?: string }>;
}

const compose: ComposeFunction = (req, rsp) => {
  const input = req.input as unknown as DependencyInput;
  for (const [name, selector] of Object.entries(input.requirements ?? {})) requireResource(rsp, name, selector);
  declareDependencies(rsp, input.dependencies);
  return Promise.resolve(rsp);
};

serve(compose, { name: 'dependency-function' });
