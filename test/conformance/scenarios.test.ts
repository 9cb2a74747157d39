// Runs every scenario of the conformance corpus (scenarios/ and realworld/): live ones step by step against a fresh local control plane with
// compositor running (scenarios/steps.ts), render ones through `compositor render` (scenarios/render.ts). The only
// ids here are the UNSUPPORTED list; a new scenario folder is picked up with no code change.
import { failureReason, report } from './report.js';
import { ScenarioCluster } from './scenarios/cluster.js';
import { runRenderScenario } from './scenarios/render.js';
import { loadAllScenarios, type Scenario } from './scenarios/scenario.js';
import { runSteps, scenarioBudgetMs } from './scenarios/steps.js';

/** Scenarios compositor cannot run here, each with its reason. Keep this list short and honest. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  'docs-connection-details-pt':
    "needs provider-aws-iam's User and AccessKey (iam.aws.m.upbound.io), which the built-in nop provider does not " +
    'serve; the same composition with nop NopResources standing in for the AccessKeys runs in ' +
    'test/integration/connectionDetails.test.ts',
  'ar-example-cel-healthcheck':
    'its expectations are prose only (no expectOutput to compare) and it needs function-go-templating and ' +
    'function-environment-configs; the CEL health check it shows is covered by the auto-ready cel vectors',
};

const STARTUP_MS = 90_000;

function kindOf(scenario: Scenario): string {
  return scenario.render ? 'RenderScenario' : 'Scenario';
}

async function runLive(scenario: Scenario): Promise<void> {
  const cluster = await ScenarioCluster.start();
  try {
    await runSteps(scenario, cluster);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`${message}\ncompositor log (last lines):\n${cluster.compositorLog()}`, { cause: err });
  } finally {
    await cluster.stop();
  }
}

describe('conformance: scenarios', () => {
  for (const scenario of loadAllScenarios()) {
    const kind = kindOf(scenario);
    it(`${scenario.id} (${kind})`, async function () {
      const reason = UNSUPPORTED[scenario.id];
      if (reason !== undefined) {
        report.record({ id: scenario.id, kind, status: 'unsupported', reason });
        this.skip();
      }
      this.timeout(STARTUP_MS + (scenario.render ? 0 : scenarioBudgetMs(scenario)));
      try {
        if (scenario.render) await runRenderScenario(scenario);
        else if (scenario.steps) await runLive(scenario);
        else throw new Error(`scenario ${scenario.id} has neither steps nor render`);
        report.record({ id: scenario.id, kind, status: 'passed' });
      } catch (err) {
        report.record({ id: scenario.id, kind, status: 'failed', reason: failureReason(err) });
        throw err;
      }
    });
  }
});
