import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** JSON logs on stdout (or the given stream), with the base fields Kubernetes log pipelines expect. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { component: 'compositor' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 1, sync: true }),
  );
}
