// The only module that reads process.argv and sets process.exitCode: commands receive their
// options from commander and report failures by throwing.
import { Command, CommanderError, Option } from 'commander';
import { RbError } from './errors.ts';
import { registerCommands } from './commands/index.ts';
import { EXIT, exitCodesHelp } from './exit-codes.ts';
import { toolVersionLine } from './version.ts';
import { deprecationNote } from './commands/vocabulary.ts';
import { sanitizeTerminal } from './format/escape.ts';

const program = new Command('runtime-bench')
  .description('Statistically honest benchmarks of CRI and OCI container runtimes')
  .addOption(new Option('-V, --version', 'print the tool version and the commit it runs from'))
  .addOption(new Option('--tool-version').hideHelp())
  .addHelpText('after', exitCodesHelp())
  .showHelpAfterError('(run with --help for usage)')
  .showSuggestionAfterError()
  .exitOverride();

// Not commander's .version(): the commit costs a git call, paid only when it is asked for.
const printVersion = (): never => {
  console.log(toolVersionLine());
  throw new CommanderError(EXIT.ok.code, 'commander.version', '');
};
program.on('option:version', printVersion);
program.on('option:tool-version', () => {
  deprecationNote('--tool-version', '--version');
  printVersion();
});

try {
  // Only the invoked command's module is loaded (see commands/index.ts).
  await registerCommands(program, process.argv.slice(2));
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error);
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // commander already printed its message (unknown option, missing argument, --help).
    return error.exitCode === 0 ? EXIT.ok.code : EXIT.usage.code;
  }
  if (error instanceof RbError) {
    console.error(`runtime-bench: ${sanitizeTerminal(error.message, { multiline: true })}`);
    if (error.hint) console.error(`hint: ${sanitizeTerminal(error.hint, { multiline: true })}`);
    if (error.cliExitCode !== undefined) return error.cliExitCode;
    // Bad input — a flag, a config, a result or data file, a history — is 2, like a usage error.
    return /^(USAGE|CONFIG|RESULT|BISECTION|DATA|HISTORY|ANNOTATIONS)_/.test(error.code)
      ? EXIT.usage.code
      : EXIT.error.code;
  }
  console.error('runtime-bench: unexpected internal error (please report it):');
  console.error(error);
  return EXIT.internal.code;
}
