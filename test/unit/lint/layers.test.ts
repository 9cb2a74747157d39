import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// The layering of src/ is enforced by eslint.config.js (docs/architecture.md#layers). Each case takes the import
// rule the real config sets for a file and runs it on a one-line source, so a forbidden import must fail lint.

const cases: Record<string, { file: string; source: string; forbidden: boolean }> = {
  'a controller importing another controller': {
    file: 'src/composite/controller.ts',
    source: "import { ClaimController } from '../claim/index.js';",
    forbidden: true,
  },
  'the managed runtime importing the claim controller': {
    file: 'src/managed/controller.ts',
    source: "import { ClaimController } from '../claim/index.js';",
    forbidden: true,
  },
  'pure logic importing the API client': {
    file: 'src/queue/reconcileQueue.ts',
    source: "import type { KubeClient } from '../kube/index.js';",
    forbidden: true,
  },
  'pure logic importing the Kubernetes client library': {
    file: 'src/functions/pipeline.ts',
    source: "import { KubeConfig } from '@kubernetes/client-node';",
    forbidden: true,
  },
  'a lower layer importing a higher one': {
    file: 'src/watch/informer.ts',
    source: "import { CompositeController } from '../composite/index.js';",
    forbidden: true,
  },
  'the process importing a controller': {
    file: 'src/manager/manager.ts',
    source: "import { DefinitionController } from '../definition/index.js';",
    forbidden: true,
  },
  'a folder reached past its index.ts': {
    file: 'src/composite/controller.ts',
    source: "import { KubeClient } from '../kube/client.js';",
    forbidden: true,
  },
  're-exporting from a forbidden folder': {
    file: 'src/kube/index.ts',
    source: "export { Informer } from '../watch/index.js';",
    forbidden: true,
  },
  'the usage controller importing the composite controller': {
    file: 'src/usage/controller.ts',
    source: "import { CompositeController } from '../composite/index.js';",
    forbidden: true,
  },
  'the composition root importing the usage controller': {
    file: 'src/engine/wiring.ts',
    source: "import { UsageController } from '../usage/index.js';",
    forbidden: false,
  },
  'a controller importing the kit': {
    file: 'src/managed/reconciler.ts',
    source: "import { StatusDraft } from '../controller/index.js';",
    forbidden: false,
  },
  'the XRD controller importing the composite controller it starts': {
    file: 'src/definition/controller.ts',
    source: "import type { XrdDefaults } from '../composite/index.js';",
    forbidden: false,
  },
  'the composition root importing the controllers': {
    file: 'src/engine/wiring.ts',
    source: "import { CompositeController } from '../composite/index.js';",
    forbidden: false,
  },
  'a file importing within its own folder': {
    file: 'src/managed/nop/provider.ts',
    source: "import { ManagedController } from '../controller.js';",
    forbidden: false,
  },
};

describe('lint/layers', function () {
  // Loading eslint.config.js pulls in typescript-eslint's configs; linting one line is then quick.
  this.timeout(30_000);
  const eslint = new ESLint({ cwd: process.cwd() });

  it('gives every folder of src/ its layer, so a new folder cannot import freely', async () => {
    const folders = readdirSync('src', { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const unlayered: string[] = [];
    for (const { name } of folders) {
      const config = (await eslint.calculateConfigForFile(`src/${name}/index.ts`)) as Linter.Config;
      if (config.rules?.['no-restricted-imports'] === undefined) unlayered.push(name);
    }
    expect(unlayered, 'folders missing from LAYERS in eslint.config.js').to.deep.equal([]);
  });

  for (const [reason, { file, source, forbidden }] of Object.entries(cases)) {
    it(`${forbidden ? 'fails' : 'passes'}: ${reason}`, async () => {
      const config = (await eslint.calculateConfigForFile(file)) as Linter.Config;
      const rule = config.rules?.['no-restricted-imports'];
      expect(rule, `eslint.config.js restricts the imports of ${file}`).to.not.equal(undefined);
      const linter = new Linter({ configType: 'flat' });
      const messages = linter.verify(
        source,
        [
          {
            files: ['**/*.ts'],
            languageOptions: { parser: tseslint.parser },
            rules: { 'no-restricted-imports': rule },
          },
        ],
        { filename: file },
      );
      expect(
        messages.map((m) => m.ruleId),
        reason,
      ).to.deep.equal(forbidden ? ['no-restricted-imports'] : []);
    });
  }
});
