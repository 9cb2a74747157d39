// The probe function (test/functions/probe-function.ts) as a process the fault benchmark can crash with SIGKILL
// and start again on the same port.
import { freePort } from '../../e2e/controlplane/ports.js';
import { PROBE_FUNCTION, startFunction, type FunctionProcess } from '../../test/functions/process.js';

export class CrashableFunction {
  private process: FunctionProcess | undefined;
  private constructor(readonly port: number) {}

  get endpoint(): string {
    return `127.0.0.1:${this.port}`;
  }

  static async start(): Promise<CrashableFunction> {
    const fn = new CrashableFunction(await freePort());
    await fn.restart();
    return fn;
  }

  /** Starts the function on its port and waits until it listens. */
  async restart(): Promise<void> {
    this.process = await startFunction(PROBE_FUNCTION, this.port);
  }

  /** SIGKILL: the crash. */
  async kill(): Promise<void> {
    await this.process?.stop('SIGKILL');
  }
}
