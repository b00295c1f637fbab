// Overhead over the CRI, for the site and other readers: the counterpart tables of both layers,
// the pairing rules, the one estimator, and the engine overhead of result files with its text.
export * from './counterparts.ts';
export * from './pairing.ts';
export * from './estimate.ts';
export * from './engine-runs.ts';
export * from './engine-format.ts';
