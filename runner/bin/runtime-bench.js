#!/usr/bin/env node
// The sources are TypeScript run directly by Node's type stripping (Node >= 24 has it on by default).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `runtime-bench needs Node.js 24 or later, this is ${process.version}.\n` +
      'hint: run `bash scripts/setup.sh` as root; it installs Node 24 from the npm package node@24.',
  );
  process.exit(2);
}
// Node's on-disk compile cache (NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache) keeps the
// type-stripped and compiled code of every module, keyed by content: a second start skips both.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
await import('../src/cli.ts');
