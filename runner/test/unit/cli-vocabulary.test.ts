// One spelling per concept: every command's options, walked through commander's own API, against
// the vocabulary table; old spellings are hidden and land on the same option value.
import { Command, Option } from 'commander';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { COMMANDS } from '../../src/commands/index.ts';
import {
  FLAG_VOCABULARY,
  aliasTarget,
  deprecatedAlias,
  type FlagConcept,
} from '../../src/commands/vocabulary.ts';

interface Leaf {
  path: string;
  command: Command;
}

/** Every runnable command (`stack up`, `run`, …) of a program, with its path. */
function leaves(program: Command, prefix = ''): Leaf[] {
  return program.commands.flatMap((c) => {
    const path = `${prefix}${c.name()}`;
    return c.commands.length === 0 ? [{ path, command: c }] : leaves(c, `${path} `);
  });
}

/** A fresh program with every command registered from its module (options, aliases and all). */
async function fullProgram(): Promise<Command> {
  const program = new Command('runtime-bench');
  for (const entry of COMMANDS) (await entry.load())(program);
  return program;
}

const flagOf = (alias: string): string => alias.split(' ')[0]!;
/** `--format json` names a value of a flag that stays visible for its other values. */
const isValueAlias = (alias: string): boolean => alias.includes(' ');

/** Problems of the visible options of `commands` against a vocabulary: one line each. */
function vocabularyProblems(commands: readonly Leaf[], vocabulary: readonly FlagConcept[]): string[] {
  const problems: string[] = [];
  for (const { path, command } of commands)
    for (const option of command.options.filter((o) => !o.hidden)) {
      for (const concept of vocabulary) {
        const wrong = [
          ...concept.aliases.filter((a) => !isValueAlias(a)).map(flagOf),
          ...concept.forbidden,
        ].filter((f) => f !== concept.flag);
        if (wrong.includes(option.long ?? '') || wrong.includes(option.short ?? ''))
          problems.push(
            `${path}: ${option.flags} is a second spelling of ${concept.concept} (use ${concept.flag})`,
          );
      }
    }
  return problems;
}

/** The value commander stores for `attribute` after parsing `args` on a fresh copy of `path`. */
async function parsedValue(path: string, args: string[], attribute: string): Promise<unknown> {
  const command = leaves(await fullProgram()).find((l) => l.path === path)!.command;
  const { unknown } = command.parseOptions(args);
  expect(unknown).toEqual([]);
  return command.getOptionValue(attribute);
}

const attributeOf = (command: Command, flag: string): string =>
  command.options.find((o) => o.long === flag)!.attributeName();

afterEach(() => vi.restoreAllMocks());

describe('one spelling per concept', () => {
  test('no command shows a second spelling of a concept', async () => {
    const all = leaves(await fullProgram());
    // Sanity of the walk itself: it reaches subcommands and their options.
    expect(all.map((l) => l.path)).toEqual(
      expect.arrayContaining(['stack up', 'data verify', 'run', 'sweep']),
    );
    expect(vocabularyProblems(all, FLAG_VOCABULARY)).toEqual([]);
  });

  test('the check fails on a command that shows an old spelling or a synonym', () => {
    const program = new Command('x');
    program.command('a').option('--repo <dir>').option('--json');
    program.command('b').option('--stack-name <name>');
    program.command('c').addOption(new Option('--name <n>').hideHelp());
    expect(vocabularyProblems(leaves(program), FLAG_VOCABULARY)).toEqual([
      'a: --repo <dir> is a second spelling of a git checkout (use --git-dir)',
      'b: --stack-name <name> is a second spelling of the local stack (use --stack)',
    ]);
  });

  test('each concept flag means one thing: no flag is the spelling of two concepts', () => {
    const flags = FLAG_VOCABULARY.map((c) => c.flag);
    expect(new Set(flags).size).toBe(flags.length);
    for (const c of FLAG_VOCABULARY)
      for (const other of FLAG_VOCABULARY.filter((o) => o !== c))
        expect([...other.aliases.map(flagOf), ...other.forbidden]).not.toContain(c.flag);
  });

  test('every concept flag is used by some command, and every alias is still accepted somewhere', async () => {
    const options = leaves(await fullProgram()).flatMap((l) => l.command.options);
    for (const c of FLAG_VOCABULARY) {
      expect(options.some((o) => o.long === c.flag && !o.hidden)).toBe(true);
      for (const alias of c.aliases.filter((a) => !isValueAlias(a)))
        expect(options.some((o) => o.long === alias && o.hidden && aliasTarget(o) === c.flag)).toBe(true);
    }
  });
});

describe('old spellings: hidden, a note on stderr, the same option value', () => {
  test('every hidden option is a listed alias of a concept flag the same command has', async () => {
    for (const { path, command } of leaves(await fullProgram()))
      for (const option of command.options.filter((o) => o.hidden)) {
        const target = aliasTarget(option);
        expect(target, `${path} ${option.flags}`).toBeDefined();
        expect(command.options.some((o) => o.long === target && !o.hidden)).toBe(true);
        const concept = FLAG_VOCABULARY.find((c) => c.flag === target);
        expect(concept?.aliases, `${path} ${option.flags}`).toContain(option.long);
      }
  });

  test('every hidden alias gives the canonical option the value the canonical flag gives, and says so', async () => {
    const pairs = leaves(await fullProgram()).flatMap(({ path, command }) =>
      command.options
        .filter((o) => o.hidden)
        .map((o) => ({
          path,
          alias: o.long!,
          target: aliasTarget(o)!,
          attribute: attributeOf(command, aliasTarget(o)!),
        })),
    );
    expect(pairs.length).toBeGreaterThanOrEqual(10);
    for (const { path, alias, target, attribute } of pairs) {
      const value = 'given-value';
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      const viaAlias = await parsedValue(path, [alias, value], attribute);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(
        new RegExp(`${alias} is deprecated .*; use ${target}\\n$`),
      );
      stderr.mockClear();
      const viaCanonical = await parsedValue(path, [target, value], attribute);
      expect(stderr).not.toHaveBeenCalled();
      expect(viaAlias, `${path} ${alias}`).toBe(value);
      expect(viaAlias).toEqual(viaCanonical);
    }
  });

  test('--format json is --json where --format exists (compare, check, plan), and markdown stays a format', async () => {
    const withFormat = leaves(await fullProgram()).filter(({ command }) =>
      command.options.some((o) => o.long === '--format'),
    );
    expect(withFormat.map((l) => l.path).sort()).toEqual(['check', 'compare', 'plan']);
    for (const { path } of withFormat) {
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      expect(await parsedValue(path, ['--format', 'json'], 'json')).toBe(true);
      expect(String(stderr.mock.calls[0]?.[0])).toContain('--format json is deprecated');
      expect(await parsedValue(path, ['--json'], 'json')).toBe(true);
      expect(await parsedValue(path, ['--format', 'markdown'], 'json')).toBeUndefined();
      expect(await parsedValue(path, ['--format', 'markdown'], 'format')).toBe('markdown');
    }
  });

  test('an alias of an option that does not exist is a programming error, not a silent no-op', () => {
    expect(() => deprecatedAlias(new Command('x'), '--name <n>', '--stack')).toThrow(/has no option --stack/);
  });
});
