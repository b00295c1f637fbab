import type { Command } from 'commander';
import { BENCHMARKS } from '../suites/registry.ts';
import { ConfigSchema } from '@runtime-bench/schemas';

export function registerList(program: Command): void {
  program
    .command('list')
    .option('--json', 'machine-readable output')
    .action((opts: { json?: boolean }) => {
      const defaults = ConfigSchema.parse({});
      const entries = BENCHMARKS.map((b) => ({ ...b.definition, parameters: b.parameters(defaults) }));
      if (opts.json) {
        console.log(JSON.stringify(entries, null, 2));
        return;
      }
      for (const e of entries) {
        console.log(`${e.name}  [${e.origin.join(', ')}]`);
        console.log(`  ${e.description}`);
        console.log(`  parameters: ${JSON.stringify(e.parameters)}`);
        for (const m of e.metrics)
          console.log(`  - ${m.name} (${m.unit}, ${m.direction} is better): ${m.description}`);
        console.log('');
      }
    });
}
