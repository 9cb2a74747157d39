// What `compositor dev` prints for a person, on stderr, apart from the JSON log on stdout: once compositor is ready,
// where the control plane is and how to point kubectl at it, ready to paste.

/** A shell word: as it is when it needs no quoting, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The banner printed once compositor is ready: the control plane's address, `export KUBECONFIG=...` and a kubectl
 * command listing the examples.
 *
 * @example readyBanner({ server: 'https://127.0.0.1:6443', kubeconfigPath: '/tmp/cp/kubeconfig' })
 */
export function readyBanner(plane: { server: string; kubeconfigPath: string }): string {
  return [
    '',
    `compositor dev: ready; the control plane is up at ${plane.server}`,
    `  export KUBECONFIG=${shellWord(plane.kubeconfigPath)}`,
    "  kubectl get composite,claim -A    # the examples' XRs and claims",
    '  Ctrl-C stops compositor and the control plane.',
    '',
    '',
  ].join('\n');
}
