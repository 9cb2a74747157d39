#!/usr/bin/env node
// Entry point of the `compositor` command: the built CLI (npm run build). The Node.js version is checked before the
// CLI is loaded: a static import of it would be evaluated first and fail on an old Node.js with an error that does
// not say what is wrong, so the CLI comes in through a dynamic import() once the check has passed. Before it, the hook
// that keeps client-node's generated API clients (47 MiB resident, never used) out of the process: see
// src/kube/slimClientNode.ts.
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem === undefined) {
  const { registerSlimClientNode } = await import('../dist/src/kube/slimClientNode.js');
  registerSlimClientNode();
  await import('../dist/src/cli/main.js');
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
}
