// Lint is strict from the first commit: every rule is an error and every disable must carry its reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * The layers of src/ (docs/architecture.md#layers): for each folder, the folders it may import. Anything else is an
 * error, as is reaching into another folder past its index.ts. Read bottom-up: leaves, then plumbing (pure logic,
 * the API client, informers), the controller kit, the controllers, and at the top the process and the CLI.
 */
const LEAVES = ['apis', 'base', 'metrics'];
/** Pure logic: no Kubernetes client, so it is unit-tested with injected clocks and in-memory fakes. */
const PURE = ['lifecycle', 'queue', 'circuitbreaker', 'functions'];
const PLUMBING = [...LEAVES, ...PURE, 'kube', 'watch'];
/** The controllers: each builds on the kit and the plumbing, never on another controller. */
const CONTROLLERS = ['composite', 'claim', 'managed', 'packages', 'usage', 'operations'];
const LAYERS = {
  apis: [],
  base: [],
  metrics: [],
  lifecycle: ['base'],
  queue: ['base', 'lifecycle', 'metrics'],
  circuitbreaker: ['base', 'lifecycle', 'metrics'],
  functions: ['apis', 'base', 'lifecycle', 'metrics'],
  kube: ['apis', 'base', 'lifecycle', 'metrics'],
  watch: ['apis', 'base', 'kube', 'lifecycle', 'metrics', 'queue'],
  controller: PLUMBING,
  composite: [...PLUMBING, 'controller'],
  // A claim is a front for an XR: the XR vocabulary it shares with the composite controller is in the kit.
  claim: [...PLUMBING, 'controller'],
  managed: [...PLUMBING, 'controller'],
  packages: [...PLUMBING, 'controller'],
  usage: [...PLUMBING, 'controller'],
  // Operations run the function pipeline compositions run, through src/functions, not through src/composite.
  operations: [...PLUMBING, 'controller'],
  // The XRD controller starts the composite and claim controllers (through factories the engine passes in).
  definition: [...PLUMBING, 'controller', 'composite', 'claim'],
  manager: [...LEAVES, 'lifecycle', 'kube'],
  engine: [...PLUMBING, 'controller', ...CONTROLLERS, 'definition'],
  cli: [...PLUMBING, 'controller', ...CONTROLLERS, 'definition', 'manager', 'engine'],
};
const FOLDERS = Object.keys(LAYERS);

/** One `files` block per folder of src/, so each folder gets its own list of forbidden imports. */
function layer(folder) {
  const allowed = LAYERS[folder];
  const forbidden = FOLDERS.filter((other) => other !== folder && !allowed.includes(other));
  const patterns = [
    {
      regex: `^(\\.\\./)+(${FOLDERS.join('|')})/(?!index\\.js$)`,
      message: 'import another folder of src/ only through its index.ts, its public surface',
    },
  ];
  if (forbidden.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
      message: `src/${folder} may import only ${allowed.join(', ') || 'nothing'} of src/ (docs/architecture.md#layers)`,
    });
  }
  const paths =
    PURE.includes(folder) || LEAVES.includes(folder)
      ? [{ name: '@kubernetes/client-node', message: `src/${folder} is pure logic: no Kubernetes client` }]
      : [];
  return { files: [`src/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { paths, patterns }] } };
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      complexity: ['error', 12],
      'max-params': ['error', 4],
      // client-node's generated models are classes that its own API documents being passed as object literals.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  ...FOLDERS.map(layer),
  {
    // Tests use chai's property assertions (`expect(x).to.be.true`), which read as unused expressions.
    files: ['test/**/*.ts', 'e2e/**/*.test.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', 'max-params': 'off' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: globals.node },
  },
);
