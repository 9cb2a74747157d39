// The `provider` command, with `nop` as its one subcommand: compositor's built-in nop provider run as the runtime of a
// provider-nop package (the process its ProviderRevision's Deployment runs). Its flags have the defaults the
// Deployment expects (metrics on 8080, webhooks on 9443); what it does is runProviderNop, passed in as the handler.
import { Command, Option } from 'commander';
import type { ProviderNopOptions } from './providerNop.js';
import { optionParser } from './values.js';

interface ProviderNopFlags {
  kubeconfig?: string;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  webhookBindAddress: string;
  pollInterval: number;
  logLevel: string;
}

/** `provider nop`; the parent shares the program's output and exit handling. */
export function providerCommand(
  run: ((options: ProviderNopOptions) => Promise<number>) | undefined,
  onExitCode: (code: number) => void,
  configure: (command: Command) => Command,
): Command {
  const nop = new Command('nop')
    .description(
      "Run the built-in nop provider as a provider-nop package's runtime: the API server as its service account, webhooks with its mounted certificate.",
    )
    .option('--kubeconfig <path>', 'Path to a kubeconfig; the in-cluster service account when not given')
    .option('--metrics-bind-address <address>', 'Where Prometheus metrics are served ("0" disables)', ':8080')
    .option('--health-probe-bind-address <address>', 'Where /healthz and /readyz are served ("0" disables)', ':8081')
    .option('--webhook-bind-address <address>', 'Where webhooks are served when TLS_SERVER_CERTS_DIR is set', ':9443')
    .addOption(
      new Option('--poll-interval <duration>', 'How often each NopResource is observed')
        .argParser(optionParser('positiveDuration'))
        .default(60_000, '1m'),
    )
    .option('--log-level <level>', 'debug, info, warn or error', 'info');
  nop.action(async (flags: ProviderNopFlags) => {
    if (run === undefined) return nop.error('provider nop is not available in this build');
    const options: ProviderNopOptions = {
      metricsBindAddress: flags.metricsBindAddress,
      healthProbeBindAddress: flags.healthProbeBindAddress,
      webhookBindAddress: flags.webhookBindAddress,
      pollIntervalMs: flags.pollInterval,
      logLevel: flags.logLevel,
    };
    if (flags.kubeconfig !== undefined) options.kubeconfig = flags.kubeconfig;
    onExitCode(await run(options));
  });
  const provider = new Command('provider').description('Run a provider compositor has built in.');
  provider.addCommand(configure(nop));
  return provider;
}
