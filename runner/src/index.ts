export * from './errors.ts';
export * from './results/io.ts';
export { summarize } from './stats/descriptive.ts';
