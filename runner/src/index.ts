export * from './errors.ts';
export { EXIT } from './exit-codes.ts';
export * from './results/io.ts';
export * from './results/layout.ts';
export * from './results/read-dir.ts';
export { summarize } from './stats/descriptive.ts';
export { bisectArgs, bisectCommand, type BisectRequest } from './bisect-request.ts';
