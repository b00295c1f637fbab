// One spelling per concept across commands: the table of concepts and their flag, and the one
// way an old spelling is kept for a release (hidden from --help, a note on stderr when used).
// test/unit/cli-vocabulary.test.ts walks every command's options against this table.
import { Option, type Command } from 'commander';

/** A concept several commands take, the one flag that spells it, and the spellings it replaced. */
export interface FlagConcept {
  concept: string;
  flag: string;
  /**
   * Old spellings, accepted (hidden) for one release: a flag (`--name`) or a flag with the value
   * that meant this concept (`--format json`). None of them may be visible on any command.
   */
  aliases: readonly string[];
  /** Spellings that must never appear (synonyms a new option could drift to). */
  forbidden: readonly string[];
}

export const FLAG_VOCABULARY: readonly FlagConcept[] = [
  {
    concept: 'JSON on stdout',
    flag: '--json',
    aliases: ['--format json'],
    forbidden: ['--output', '--output-format', '-o'],
  },
  { concept: 'the local stack', flag: '--stack', aliases: ['--name'], forbidden: ['--stack-name'] },
  { concept: 'the local cluster', flag: '--cluster', aliases: ['--name'], forbidden: ['--cluster-name'] },
  {
    concept: 'a git checkout',
    flag: '--git-dir',
    aliases: ['--repo'],
    forbidden: ['--checkout', '--clone', '--repository'],
  },
  { concept: 'a runtime-bench config', flag: '--config', aliases: [], forbidden: ['--config-file', '-c'] },
  { concept: 'where versions come from', flag: '--source', aliases: [], forbidden: ['--from'] },
  { concept: 'the install root', flag: '--prefix', aliases: [], forbidden: ['--install-dir', '--root'] },
  {
    concept: 'the result file written',
    flag: '--out',
    aliases: [],
    forbidden: ['--output-file', '--result'],
  },
];

/**
 * Why `--source` defaults differ: `install` takes prebuilt release binaries (fast, checksummed);
 * `sweep` and `versions` list the versions between two ends, which only the go (module proxy) and
 * git sources can do, so they default to go.
 */
export const SOURCE_DEFAULTS_WHY =
  'the default differs by design: install takes release binaries, prebuilt and checksummed; sweep and versions list a range of versions, which only go and git can';

const aliasTargets = new WeakMap<Option, string>();

/** The canonical flag a hidden alias option stands for, or undefined for any other option. */
export function aliasTarget(option: Option): string | undefined {
  return aliasTargets.get(option);
}

/** The one line a deprecated spelling prints on stderr (stdout stays clean for --json). */
export function deprecationNote(old: string, replacement: string): void {
  process.stderr.write(
    `runtime-bench: ${old} is deprecated and will be removed in the next release; use ${replacement}\n`,
  );
}

/**
 * Adds `flags` (e.g. `--name <name>`) to `command` as a hidden, deprecated spelling of the
 * option `canonical` (e.g. `--stack`, added before): the value lands on the canonical option, as
 * if it had been given, and a note goes to stderr.
 */
export function deprecatedAlias(command: Command, flags: string, canonical: string): Command {
  const target = command.options.find((o) => o.long === canonical);
  if (!target) throw new Error(`deprecatedAlias: ${command.name()} has no option ${canonical}`);
  const alias = new Option(flags, `deprecated: use ${canonical}`).hideHelp();
  aliasTargets.set(alias, canonical);
  command.addOption(alias);
  // commander stores the alias' own value first (its listener was added by addOption).
  command.on(`option:${alias.name()}`, (value: unknown) => {
    deprecationNote(alias.long!, canonical);
    command.setOptionValueWithSource(target.attributeName(), value, 'cli');
  });
  return command;
}
