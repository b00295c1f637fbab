export * from './descriptive.ts';
