import type { Command } from 'commander';
import { StackNameSchema } from '@runtime-bench/schemas';
import { createCriClient } from '../cri/client.ts';
import { RbError, errorMessage } from '../errors.ts';
import { readStackState, stackStateDir } from '../stack/state.ts';
import { TOOL_VERSION, toolGitCommit } from '../version.ts';

export function registerVersion(program: Command): void {
  program
    .command('version')
    .option('--endpoint <socket>', 'a CRI socket (unix:///… or a path)')
    .option('--stack <name>', 'a local stack (its handlers and their versions come from its state)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { endpoint?: string; stack?: string; json?: boolean }) => {
      if (opts.endpoint && opts.stack)
        throw new RbError('USAGE_VERSION', 'give either --endpoint or --stack, not both');
      // The name becomes a directory under the state root: "../../x" must never reach a path.
      if (opts.stack !== undefined && !StackNameSchema.safeParse(opts.stack).success)
        throw new RbError(
          'USAGE_STACK_NAME',
          `--stack ${JSON.stringify(opts.stack)} is not a valid stack name`,
          'use lower-case letters, digits and "-", at most 31 characters (the --stack given to `stack up`)',
        );
      const out: Record<string, unknown> = {
        tool: 'runtime-bench',
        version: TOOL_VERSION,
        gitCommit: toolGitCommit(),
        node: process.version,
      };
      let socket = opts.endpoint?.replace(/^unix:\/\//, '');
      if (opts.stack) {
        const state = await readStackState(stackStateDir(opts.stack));
        if (!state)
          throw new RbError(
            'TARGET_UNAVAILABLE',
            `stack "${opts.stack}" has never been brought up`,
            `runtime-bench stack up --stack ${opts.stack}`,
          );
        socket = state.socket;
        out.handlers = state.handlers.map((h) => ({
          name: h.name,
          runtime: h.kind,
          version: h.version,
          binary: h.binary,
        }));
      }
      if (socket) {
        const client = createCriClient('grpc', socket, { timeoutSeconds: 10 });
        try {
          const v = await client.version();
          out.runtime = {
            name: v.runtimeName,
            version: v.runtimeVersion,
            criApi: v.runtimeApiVersion,
            endpoint: `unix://${socket}`,
          };
          if (!out.handlers) {
            const names = await client.runtimeHandlers().catch(() => []);
            out.handlers = names.map((name) => ({ name }));
          }
        } catch (error) {
          throw new RbError(
            'TARGET_UNAVAILABLE',
            `no CRI runtime answers on ${socket}: ${errorMessage(error)}`,
            'is it running? for a local stack: runtime-bench stack up',
          );
        } finally {
          client.close();
        }
      }
      if (opts.json) {
        console.log(JSON.stringify(out, null, 2));
        return;
      }
      console.log(
        `runtime-bench ${TOOL_VERSION}${out.gitCommit ? ` (${String(out.gitCommit)})` : ''}, node ${process.version}`,
      );
      const runtime = out.runtime as
        { name: string; version: string; criApi: string; endpoint: string } | undefined;
      if (runtime)
        console.log(
          `runtime ${runtime.name} ${runtime.version} (CRI ${runtime.criApi}) at ${runtime.endpoint}`,
        );
      for (const h of (out.handlers as { name: string; runtime?: string; version?: string }[] | undefined) ??
        []) {
        console.log(`  handler ${h.name}${h.runtime ? `: ${h.runtime} ${h.version}` : ''}`);
      }
    });
}
