import { z } from 'zod';
import { ConfigSchema } from './config.ts';
import { RunResultSchema } from './result.ts';
import { BisectReportSchema } from './bisect.ts';

/** The JSON Schema files published beside the data, generated from the zod schemas. */
export function jsonSchemas(): Record<string, unknown> {
  return {
    'config.schema.json': z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }),
    'result.schema.json': z.toJSONSchema(RunResultSchema, { io: 'output', unrepresentable: 'any' }),
    'bisect-report.schema.json': z.toJSONSchema(BisectReportSchema, { io: 'input', unrepresentable: 'any' }),
  };
}

export function renderJsonSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
