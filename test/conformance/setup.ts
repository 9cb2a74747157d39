// Runs before mocha loads the suites: a missing or unreadable corpus ends the run with one line and exit code 1.
// Its root hook reports the run once every suite has recorded into the shared report.
import { checkCorpus } from './corpus.js';
import { report } from './report.js';

try {
  checkCorpus();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

export const mochaHooks = {
  afterAll(): void {
    // run.ts (npm run test:conformance) asks for the JSON summary and prints the failure lines and the final line
    // itself, after mocha's own output; a bare mocha run prints them here.
    const json = process.env.COMPOSITOR_CONFORMANCE_JSON;
    if (json !== undefined && json !== '') report.writeJson(json);
    else process.stdout.write(`${report.lines().join('\n')}\n`);
  },
};
