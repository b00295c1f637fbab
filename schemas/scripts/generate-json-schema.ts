// Writes schemas/json/*.schema.json from the zod schemas; a test fails when they are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemas, renderJsonSchema } from '../src/index.ts';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'json');
mkdirSync(outDir, { recursive: true });
for (const [file, schema] of Object.entries(jsonSchemas())) {
  writeFileSync(join(outDir, file), renderJsonSchema(schema));
  console.log(`wrote schemas/json/${file}`);
}
