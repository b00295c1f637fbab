export * from './common.ts';
export * from './summary.ts';
export * from './parameters.ts';
export * from './config.ts';
export * from './host.ts';
export * from './result.ts';
export * from './json-schema.ts';
export * from './issues.ts';
