// The `trace` subcommand's flags and arguments; what it does is runTrace (trace.ts), passed in as the handler.
import { Command, Option } from 'commander';
import type { TraceOptions } from './trace.js';
import type { TraceFormat } from './tracePrinters.js';

interface TraceFlags {
  namespace?: string;
  output: TraceFormat;
  showConnectionSecrets?: boolean;
  kubeconfig?: string;
}

/**
 * Splits `TYPE NAME` or `TYPE/NAME` as upstream does: the type and the name, or what is wrong with the arguments
 * (upstream's texts for a malformed type and for a name given twice).
 */
export function splitResourceAndName(resource: string, name: string | undefined): [string, string] | string {
  const parts = resource.split('/');
  if (parts.length > 2 || parts[0] === '') {
    return "invalid resource, must be provided in the 'TYPE[.VERSION][.GROUP][/NAME]' format";
  }
  if (parts.length === 2 && name !== undefined) {
    return "name provided twice, must be provided separately 'TYPE[.VERSION][.GROUP] [NAME]' or in the 'TYPE[.VERSION][.GROUP][/NAME]' format";
  }
  const fullName = parts.length === 2 ? parts[1] : name;
  if (fullName === undefined || fullName === '')
    return 'trace needs the name of the resource: <type> <name> or <type>/<name>';
  return [parts[0] ?? '', fullName];
}

const HELP = `
Examples:
  # The tree of XR "shop" of kind XApp (any group) in namespace team-a
  compositor trace xapp shop -n team-a

  # The same, naming the group, or the version and the group, as kubectl accepts them
  compositor trace xapps.example.org/shop -n team-a
  compositor trace xapps.v1.example.org shop -n team-a

  # Whole condition messages and each composed resource's name in the composition
  compositor trace xapp shop -n team-a -o wide

  # A picture of the tree
  compositor trace xapp shop -n team-a -o dot | dot -Tpng -o shop.png

  # A CronOperation's Operations and what each applied
  compositor trace cronoperation rotate-keys
`;

/** Builds `compositor trace`; run is undefined in builds without it, which makes the command a usage error. */
export function traceCommand(
  run: ((options: TraceOptions) => Promise<number>) | undefined,
  onExitCode: (code: number) => void,
): Command {
  const command = new Command('trace')
    .description(
      'Print a claim, XR or composed resource and everything it composes as a tree, like crossplane beta trace; or an Operation and what it applied.',
    )
    .argument('<resource>', "resource type as kubectl names it, 'TYPE[.VERSION][.GROUP]', optionally with '/NAME'")
    .argument('[name]', 'name of the resource')
    .option(
      '-n, --namespace <namespace>',
      "namespace of a namespaced resource (default: the kubeconfig context's, else default)",
    )
    .addOption(
      new Option('-o, --output <format>', 'default, wide (adds RESOURCE, whole messages), json or dot')
        .choices(['default', 'wide', 'json', 'dot'])
        .default('default'),
    )
    .option('-s, --show-connection-secrets', 'also show the connection Secrets of claims and legacy XRs')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .addHelpText('after', HELP);
  return command.action(async (resource: string, name: string | undefined, flags: TraceFlags) => {
    if (run === undefined) return command.error('trace is not available in this build');
    const split = splitResourceAndName(resource, name);
    if (typeof split === 'string') return command.error(split);
    const options: TraceOptions = { resource: split[0], name: split[1], output: flags.output };
    if (flags.namespace !== undefined) options.namespace = flags.namespace;
    if (flags.showConnectionSecrets === true) options.showConnectionSecrets = true;
    if (flags.kubeconfig !== undefined) options.kubeconfig = flags.kubeconfig;
    onExitCode(await run(options));
  });
}
