// The command table: each entry's module registers the command it is listed as, and only the
// invoked command's module is loaded (the others are their name and description).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { COMMANDS, invokedCommand, registerCommands } from '../../src/commands/index.ts';

describe('invokedCommand', () => {
  test('the first argument that is not an option; for help, the command it is about', () => {
    expect(invokedCommand([])).toBeNull();
    expect(invokedCommand(['--help'])).toBeNull();
    expect(invokedCommand(['-V'])).toBeNull();
    expect(invokedCommand(['run', '--config', 'x.yaml'])).toBe('run');
    expect(invokedCommand(['stack', 'up', '--name', 'n'])).toBe('stack');
    expect(invokedCommand(['help', 'validate'])).toBe('validate');
    expect(invokedCommand(['help'])).toBeNull();
    expect(invokedCommand(['nosuch'])).toBe('nosuch');
  });
});

describe('registerCommands', () => {
  test.each(COMMANDS.map((c) => c.name))(
    '%s: its module registers it, with the listed description',
    async (name) => {
      const program = new Command('runtime-bench');
      await registerCommands(program, [name]);
      const entry = COMMANDS.find((c) => c.name === name)!;
      const command = program.commands.find((c) => c.name() === name)!;
      expect(command.description()).toBe(entry.description);
      // The real module gave it options, arguments or subcommands; a stub has none.
      expect(
        command.options.length + command.registeredArguments.length + command.commands.length,
      ).toBeGreaterThan(0);
      // Every command appears once, the others as stubs.
      expect(program.commands.map((c) => c.name()).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
      for (const other of program.commands.filter((c) => c.name() !== name)) {
        expect(other.options).toHaveLength(0);
        expect(other.commands).toHaveLength(0);
      }
    },
  );
});

describe('the command table is complete', () => {
  test('every command a module of commands/ registers is listed in COMMANDS (else it is unreachable)', async () => {
    const dir = join(import.meta.dirname, '../../src/commands');
    const registered: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts')) {
      const module = (await import(join(dir, file))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module))
        if (/^register[A-Z]/.test(name) && typeof value === 'function') {
          const program = new Command('runtime-bench');
          (value as (p: Command) => void)(program);
          registered.push(...program.commands.map((c) => c.name()));
        }
    }
    expect(registered.sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });
});
