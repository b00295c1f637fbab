export * from './keys.ts';
export * from './two-sample.ts';
export * from './compare.ts';
export * from './annotations.ts';
export * from './gate/index.ts';
export * from './history.ts';
export * from './format.ts';
export * from './plan.ts';
