// The Node.js version check of bin/compositor.js. It imports nothing and uses only syntax that old Node.js versions
// parse, so it can run, and say what is wrong, before anything that needs a newer Node.js is loaded.

/**
 * The Node.js major version compositor needs: the major of the Node.js package.json pins (devDependencies "node"; a
 * unit test keeps the two equal). This check is the only one: package.json has no "engines", because npm checks those
 * against the Node.js npm itself runs on, and `npx compositor` on a machine with an older `node` would print
 * EBADENGINE warnings before running compositor on the pinned Node.js anyway.
 */
export const REQUIRED_NODE_MAJOR = 24;

/**
 * The one line to print when Node.js `version` (process.versions.node, such as "20.20.2") is too old for compositor,
 * or undefined when it will do.
 *
 * @example nodeVersionProblem('24.21.0') === undefined
 */
export function nodeVersionProblem(version, required = REQUIRED_NODE_MAJOR) {
  const major = Number(String(version).split('.')[0]);
  if (major >= required) return undefined;
  return (
    `compositor needs Node.js >= ${required} (found v${version}); run it with npx compositor ..., which uses the ` +
    `Node.js pinned in this repository, or install Node.js ${required}`
  );
}
