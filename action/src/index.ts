export * from './inputs.ts';
export * from './run-config.ts';
export * from './summary.ts';
export * from './regressions.ts';
export * from './steps.ts';
export * from './timings.ts';
export * from './cri.ts';
