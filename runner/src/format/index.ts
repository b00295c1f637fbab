// Formatting for humans, shared by the CLI, the action's job summary and the site.
export * from './number.ts';
export * from './escape.ts';
export * from './table.ts';
