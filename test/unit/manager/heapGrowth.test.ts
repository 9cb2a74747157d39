import { expect } from 'chai';
import { heapGrowthFlag } from '../../../src/manager/index.js';

describe('heapGrowthFlag', () => {
  it('sets V8 --heap-growing-percent to the flag value', () => {
    expect(heapGrowthFlag(50, { execArgv: [] })).to.equal('--heap-growing-percent=50');
  });

  it('leaves V8 its own factor for 0', () => {
    expect(heapGrowthFlag(0, { execArgv: [] })).to.equal(undefined);
  });

  it('leaves a factor given to Node itself, on its command line or in NODE_OPTIONS, in either spelling', () => {
    expect(heapGrowthFlag(50, { execArgv: ['--heap-growing-percent=20'] })).to.equal(undefined);
    expect(
      heapGrowthFlag(50, { execArgv: [], nodeOptions: '--max-old-space-size=512 --heap_growing_percent=20' }),
    ).to.equal(undefined);
  });

  it('is not fooled by other flags', () => {
    expect(heapGrowthFlag(30, { execArgv: ['--import', 'tsx'], nodeOptions: '--max-semi-space-size=16' })).to.equal(
      '--heap-growing-percent=30',
    );
  });
});
