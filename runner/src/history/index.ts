// The gate's history, read from where it lives: a local directory of result files, or the data
// branch. The file and git side of the gate; compare/ itself stays pure.
export * from './local.ts';
export * from './branch.ts';
