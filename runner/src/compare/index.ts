export * from './keys.ts';
export * from './two-sample.ts';
export * from './compare.ts';
// the engine overhead of result files is compare's too (compare engines.json); it lives in overhead/
export * from '../overhead/engine-runs.ts';
export * from '../overhead/engine-format.ts';
export { hostKey } from '../overhead/pairing.ts';
export * from './annotations.ts';
export * from './gate/index.ts';
export * from './bisect-offers.ts';
export * from './format.ts';
export * from './plan.ts';
export * from './version-pairs.ts';
export * from './version-change.ts';
export * from './version-change-format.ts';
export * from './side-by-side-plan.ts';
