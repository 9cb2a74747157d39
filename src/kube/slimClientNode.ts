// Keeps client-node's generated API clients out of the process. client-node's KubeConfig module imports the barrel of
// its generated code (about 1,000 modules, 25 MB of source: every API group's client and model) for the two names
// it needs to build an API client. compositor talks to the API server through its own KubeClient and never builds one,
// yet loading that barrel cost 47 MiB of resident memory (idle and at peak alike) and a third of the start-up heap.
// This hook answers KubeConfig's import of the barrel with a module exporting just those two names from their own
// files, so KubeConfig (authentication, exec plugins, in-cluster config) works as it does unhooked.
//
// Only the built CLI registers it (bin/compositor.js), before anything imports client-node. compositor imports
// client-node's values from their own modules (config.js, watch.js, gen/http/http.js) rather than from the package
// root, whose index re-exports the barrel. Should a client-node upgrade stop importing the barrel from config.js, the
// hook no longer matches and changes nothing; should the two names move, importing KubeConfig fails at start, which
// the unit test (test/unit/kube/slimClientNode.test.ts) catches first.
import { registerHooks } from 'node:module';

const BARREL = './gen/index.js';
const IMPORTER = '/@kubernetes/client-node/dist/config.js';

/** The module standing in for the barrel: what client-node's config.js imports from it, from their own files. */
function standIn(parentUrl: string): string {
  const from = (path: string): string => new URL(path, parentUrl).href;
  const source = [
    `export { createConfiguration } from ${JSON.stringify(from('./gen/configuration.js'))};`,
    `export { ServerConfiguration } from ${JSON.stringify(from('./gen/servers.js'))};`,
  ].join('\n');
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

/** Registers the hook for this process (and the modules it imports from now on). */
export function registerSlimClientNode(): void {
  registerHooks({
    resolve(specifier, context, next) {
      if (specifier === BARREL && context.parentURL?.endsWith(IMPORTER) === true) {
        return { url: standIn(context.parentURL), shortCircuit: true };
      }
      return next(specifier, context);
    },
  });
}
