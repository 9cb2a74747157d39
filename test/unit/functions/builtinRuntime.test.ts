import { expect } from 'chai';
import {
  BUILTIN_ANNOTATION,
  builtinFunctions,
  chooseRuntime,
  DEFAULT_BUILTIN_POLICY,
  isPackageLocation,
  parsePackageRef,
  RoutingRunner,
  type BuiltinPolicy,
  type FunctionCall,
  type FunctionLike,
  type PackageRef,
  type RuntimeChoice,
} from '../../../src/functions/index.js';

const PT = 'function-patch-and-transform';
const READY = 'function-auto-ready';
const UPSTREAM = 'xpkg.crossplane.io/crossplane-contrib';
const MIRROR = 'registry.acme.io/mirror/crossplane-contrib';

function fn(pkg: string, annotation?: string): FunctionLike {
  return {
    metadata: annotation === undefined ? {} : { annotations: { [BUILTIN_ANNOTATION]: annotation } },
    spec: { package: pkg },
  };
}

function withEndpoint(f: FunctionLike, endpoint: string): FunctionLike {
  const annotations = { ...f.metadata.annotations, 'compositor.crossplane.io/endpoint': endpoint };
  return { ...f, metadata: { ...f.metadata, annotations } };
}

describe('functions/builtinRuntime chooseRuntime', () => {
  const cases: Record<
    string,
    {
      reason: string;
      fn: FunctionLike;
      policy?: BuiltinPolicy;
      want: { builtin?: string; message: string | RegExp; invalidAnnotation?: string };
    }
  > = {
    'upstream p&t at v0.10.8': {
      reason: 'the release the built-in was checked against runs in-process',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`),
      want: { builtin: PT, message: `Running in-process as compositor's built-in ${PT} (reproduces v0.10.x)` },
    },
    'upstream p&t at v0.10.0': {
      reason: 'the whole v0.10.x line behaves the same',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.0`),
      want: { builtin: PT, message: /reproduces v0\.10\.x\)$/ },
    },
    'upstream auto-ready at v0.7.0': {
      reason: 'auto-ready reproduces v0.7.x',
      fn: fn(`${UPSTREAM}/${READY}:v0.7.0`),
      want: { builtin: READY, message: `Running in-process as compositor's built-in ${READY} (reproduces v0.7.x)` },
    },
    'the historical upbound registry': {
      reason: 'xpkg.upbound.io/crossplane-contrib is upstream too',
      fn: fn(`xpkg.upbound.io/crossplane-contrib/${PT}:v0.10.3`),
      want: { builtin: PT, message: /^Running in-process/ },
    },
    'ghcr.io, where upstream CI pushes': {
      reason: 'xpkg.crossplane.io is served from ghcr.io/crossplane-contrib',
      fn: fn(`ghcr.io/crossplane-contrib/${READY}:v0.7.0`),
      want: { builtin: READY, message: /^Running in-process/ },
    },
    'a version below the range': {
      reason: 'v0.9.x lacks v0.10.0 behaviour (connection details of v2 XRs)',
      fn: fn(`${UPSTREAM}/${PT}:v0.9.0`),
      want: {
        message: `Running the package as written: version v0.9.0 is outside the built-in ${PT}'s range >=0.10.0 <0.11.0`,
      },
    },
    'a version above the range': {
      reason: 'a later minor release may behave differently',
      fn: fn(`${UPSTREAM}/${READY}:v0.8.0`),
      want: {
        message: `Running the package as written: version v0.8.0 is outside the built-in ${READY}'s range >=0.7.0 <0.8.0`,
      },
    },
    'an old auto-ready': {
      reason: 'v0.6.x reads no input',
      fn: fn(`${UPSTREAM}/${READY}:v0.6.0`),
      want: { message: /version v0\.6\.0 is outside/ },
    },
    'a pre-release inside the range': {
      reason: 'what a release candidate does is not known',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.9-rc.1`),
      want: { message: /version v0\.10\.9-rc\.1 is outside/ },
    },
    'a fork of the same name': {
      reason: 'a repository elsewhere is not upstream',
      fn: fn(`registry.acme.io/platform/${PT}:v0.10.8`),
      want: {
        message: `Running the package as written: registry.acme.io/platform is not a location of upstream's ${PT} (--builtin-function-registries)`,
      },
    },
    'a fork under another organisation of the upstream registry': {
      reason: 'only crossplane-contrib is upstream',
      fn: fn(`xpkg.crossplane.io/acme/${PT}:v0.10.8`),
      want: { message: /xpkg\.crossplane\.io\/acme is not a location of upstream's/ },
    },
    'a package without a registry': {
      reason: 'Crossplane v2 has no default registry',
      fn: fn(`crossplane-contrib/${PT}:v0.10.8`),
      want: { message: /crossplane-contrib is not a location of upstream's/ },
    },
    'a mirror before it is declared': {
      reason: 'a mirror is not upstream until --builtin-function-registries names it',
      fn: fn(`${MIRROR}/${PT}:v0.10.8`),
      want: { message: /registry\.acme\.io\/mirror\/crossplane-contrib is not a location/ },
    },
    'a declared mirror': {
      reason: 'the flag lists it',
      fn: fn(`${MIRROR}/${PT}:v0.10.8`),
      policy: { enabled: true, registries: [MIRROR] },
      want: { builtin: PT, message: /^Running in-process/ },
    },
    'upstream once the flag lists only the mirror': {
      reason: 'the flag replaces the defaults',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`),
      policy: { enabled: true, registries: [MIRROR] },
      want: { message: /is not a location of upstream's/ },
    },
    'a digest': {
      reason: 'a digest is not a known version',
      fn: fn(`${UPSTREAM}/${PT}@sha256:0123abcd`),
      want: {
        message: `Running the package as written: a digest is not a version the built-in ${PT} is known to reproduce`,
      },
    },
    'a tag and a digest': {
      reason: 'the digest is what runs',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8@sha256:0123abcd`),
      want: { message: /a digest is not a version/ },
    },
    latest: {
      reason: 'a tag that is not a version could be any release',
      fn: fn(`${UPSTREAM}/${PT}:latest`),
      want: { message: 'Running the package as written: tag "latest" is not a semantic version' },
    },
    'no tag': {
      reason: 'the package names no version',
      fn: fn(`${UPSTREAM}/${PT}`),
      want: { message: 'Running the package as written: the package names no version' },
    },
    'a function that is not built in': {
      reason: 'only two repositories have a built-in',
      fn: fn(`${UPSTREAM}/function-go-templating:v0.12.2`),
      want: { message: 'Running the package as written: compositor has no built-in function-go-templating' },
    },
    'a repository whose name only starts like a built-in': {
      reason: 'the whole repository name must match',
      fn: fn(`${UPSTREAM}/${READY}-fork:v0.7.0`),
      want: { message: `Running the package as written: compositor has no built-in ${READY}-fork` },
    },
    'annotation "true" on a fork at another version': {
      reason: 'forcing takes any registry and version',
      fn: fn(`registry.acme.io/platform/${PT}:v0.3.0`, 'true'),
      want: {
        builtin: PT,
        message: `Running in-process as compositor's built-in ${PT} (reproduces v0.10.x): forced by annotation ${BUILTIN_ANNOTATION}: "true"`,
      },
    },
    'annotation "true" on a digest': {
      reason: 'forcing takes a digest too',
      fn: fn(`${UPSTREAM}/${READY}@sha256:0123abcd`, 'true'),
      want: { builtin: READY, message: /forced by annotation/ },
    },
    'annotation "true" on a function that is not built in': {
      reason: 'there is nothing to force',
      fn: fn(`${UPSTREAM}/function-kcl:v0.11.0`, 'true'),
      want: { message: /compositor has no built-in function-kcl, so annotation .* "true" cannot apply/ },
    },
    'an explicit endpoint on upstream in range': {
      reason: 'a Function the user runs at an endpoint is called there, as docs/functions.md says',
      fn: withEndpoint(fn(`${UPSTREAM}/${PT}:v0.10.8`), 'dns:///pt.fns:9443'),
      want: {
        message: `Running the package as written: called at its compositor.crossplane.io/endpoint annotation "dns:///pt.fns:9443"`,
      },
    },
    'an explicit endpoint with annotation "true"': {
      reason: 'forcing the built-in wins over the endpoint',
      fn: withEndpoint(fn(`${UPSTREAM}/${PT}:v0.10.8`, 'true'), 'dns:///pt.fns:9443'),
      want: { builtin: PT, message: /forced by annotation/ },
    },
    'annotation "false" on upstream in range': {
      reason: 'forcing the package wins over the default',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`, 'false'),
      want: { message: `Running the package as written: forced by annotation ${BUILTIN_ANNOTATION}: "false"` },
    },
    '--builtin-functions=false': {
      reason: 'the flag turns every built-in off',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`),
      policy: { enabled: false, registries: [UPSTREAM] },
      want: { message: 'Running the package as written: built-in functions are off (--builtin-functions=false)' },
    },
    '--builtin-functions=false beats annotation "true"': {
      reason: "the installation's switch wins over a Function's annotation",
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`, 'true'),
      policy: { enabled: false, registries: [UPSTREAM] },
      want: { message: /built-in functions are off/ },
    },
    'an invalid annotation on upstream in range': {
      reason: 'an invalid value is ignored and reported; the default decision stands',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`, 'yes'),
      want: {
        builtin: PT,
        message: `Running in-process as compositor's built-in ${PT} (reproduces v0.10.x); annotation ${BUILTIN_ANNOTATION}: "yes" is ignored: expected "true" or "false"`,
        invalidAnnotation: 'yes',
      },
    },
    'an invalid annotation on an old version': {
      reason: 'the default decision stands: the package runs',
      fn: fn(`${UPSTREAM}/${PT}:v0.8.2`, 'True'),
      want: {
        message: /^Running the package as written: version v0\.8\.2 .*"True" is ignored/,
        invalidAnnotation: 'True',
      },
    },
    'an empty annotation': {
      reason: 'empty is neither true nor false',
      fn: fn(`${UPSTREAM}/${PT}:v0.10.8`, ''),
      want: { builtin: PT, message: /"" is ignored/, invalidAnnotation: '' },
    },
    'no package at all': {
      reason: 'a Function without spec.package has nothing to match',
      fn: { metadata: {} },
      want: { message: 'Running the package as written: compositor has no built-in for an empty package' },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const got = chooseRuntime(c.fn, c.policy ?? DEFAULT_BUILTIN_POLICY);
      expect(got.builtin, c.reason).to.equal(c.want.builtin);
      expect(got.invalidAnnotation, c.reason).to.equal(c.want.invalidAnnotation);
      if (typeof c.want.message === 'string') expect(got.message, c.reason).to.equal(c.want.message);
      else expect(got.message, c.reason).to.match(c.want.message);
    });
  }
});

describe('functions/packageRef', () => {
  const cases: Record<string, { ref: string; want: PackageRef }> = {
    'registry, organisation, tag': {
      ref: `${UPSTREAM}/${PT}:v0.10.8`,
      want: { location: UPSTREAM, repository: PT, tag: 'v0.10.8' },
    },
    'a registry port is not a tag': {
      ref: `localhost:5000/${READY}`,
      want: { location: 'localhost:5000', repository: READY },
    },
    'a digest': {
      ref: `${UPSTREAM}/${PT}@sha256:ab`,
      want: { location: UPSTREAM, repository: PT, digest: 'sha256:ab' },
    },
    'a bare name': { ref: PT, want: { location: '', repository: PT } },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`parses ${name}`, () => {
      expect(parsePackageRef(c.ref)).to.deep.equal(c.want);
    });
  }

  const locations: Record<string, { text: string; want: boolean }> = {
    'a registry and organisation': { text: UPSTREAM, want: true },
    'a registry with a port and a path': { text: 'registry.acme.io:5000/mirror/crossplane-contrib', want: true },
    'a registry alone': { text: 'registry.acme.io', want: true },
    'a scheme': { text: `https://${UPSTREAM}`, want: false },
    'a trailing slash': { text: `${UPSTREAM}/`, want: false },
    'a tag': { text: `${UPSTREAM}:v1`, want: false },
    'upper case': { text: 'Registry.acme.io/Mirror', want: false },
    nothing: { text: '', want: false },
  };
  for (const [name, c] of Object.entries(locations)) {
    it(`${c.want ? 'accepts' : 'rejects'} as a location ${name}`, () => {
      expect(isPackageLocation(c.text)).to.equal(c.want);
    });
  }
});

describe('functions/router RoutingRunner with chooseRuntime', () => {
  const request = { desired: {}, observed: {} };

  function setup(packages: Record<string, FunctionLike>, policy?: BuiltinPolicy) {
    const remote: FunctionCall[] = [];
    const chosen: { name: string; choice: RuntimeChoice }[] = [];
    const runner = new RoutingRunner({
      builtins: builtinFunctions(),
      functionOf: (name) => Promise.resolve(packages[name]),
      remote: {
        run: (call) => {
          remote.push(call);
          return Promise.resolve({});
        },
      },
      policy,
      onChoice: (name, choice) => chosen.push({ name, choice }),
    });
    return { runner, remote, chosen };
  }

  it('sends a fork, an out-of-range version and a forced package to the remote runner', async () => {
    const { runner, remote } = setup({
      fork: fn(`registry.acme.io/platform/${PT}:v0.10.8`),
      old: fn(`${UPSTREAM}/${PT}:v0.9.0`),
      forced: fn(`${UPSTREAM}/${READY}:v0.7.0`, 'false'),
      upstream: fn(`${UPSTREAM}/${READY}:v0.7.0`),
    });
    for (const functionName of ['fork', 'old', 'forced', 'upstream']) {
      await runner.run({ functionName, step: 's', request });
    }
    expect(remote.map((c) => c.functionName)).to.deep.equal(['fork', 'old', 'forced']);
  });

  it('runs a declared mirror in-process', async () => {
    const { runner, remote } = setup(
      { mirrored: fn(`${MIRROR}/${READY}:v0.7.0`) },
      { enabled: true, registries: [MIRROR] },
    );
    await runner.run({ functionName: 'mirrored', step: 's', request });
    expect(remote).to.deep.equal([]);
  });

  it("reports each Function's path once, not per call, and again when it changes", async () => {
    const packages = { pt: fn(`${UPSTREAM}/${PT}:v0.10.8`) };
    const { runner, chosen } = setup(packages);
    for (let i = 0; i < 3; i++) await runner.run({ functionName: 'pt', step: 's', request });
    expect(chosen.map((c) => c.choice.builtin)).to.deep.equal([PT]);
    packages.pt = fn(`${UPSTREAM}/${PT}:v0.10.8`, 'false');
    for (let i = 0; i < 2; i++) await runner.run({ functionName: 'pt', step: 's', request });
    expect(chosen.map((c) => c.choice.builtin)).to.deep.equal([PT, undefined]);
    expect(chosen[1]?.choice.message).to.match(/forced by annotation/);
  });
});
