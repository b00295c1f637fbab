// The only module that reads process.argv and sets process.exitCode: commands receive their
// options from commander and report failures by throwing.
import { Command, CommanderError } from 'commander';
import { RbError } from './errors.ts';
import { registerCommands } from './commands/index.ts';
import { TOOL_VERSION } from './version.ts';
import { sanitizeTerminal } from './format/escape.ts';

const program = new Command('runtime-bench')
  .description('Statistically honest benchmarks of CRI and OCI container runtimes')
  .version(TOOL_VERSION, '-V, --tool-version', 'print the tool version')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

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
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof RbError) {
    console.error(`runtime-bench: ${sanitizeTerminal(error.message, { multiline: true })}`);
    if (error.hint) console.error(`hint: ${sanitizeTerminal(error.hint, { multiline: true })}`);
    if (error.cliExitCode !== undefined) return error.cliExitCode;
    // Bad input — a flag, a config, a result or data file, a history — is 2, like a usage error.
    return /^(USAGE|CONFIG|RESULT|DATA|HISTORY|ANNOTATIONS)_/.test(error.code) ? 2 : 1;
  }
  console.error('runtime-bench: unexpected internal error (please report it):');
  console.error(error);
  return 70;
}
