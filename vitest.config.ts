import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    passWithNoTests: true,
    projects: [
      { test: { name: 'schemas', root: 'schemas', include: ['test/**/*.test.ts'] } },
      { test: { name: 'runner', root: 'runner', include: ['test/unit/**/*.test.ts'] } },
      {
        // Integration tests drive real containerd/runc/crun stacks as root: one file at a time,
        // each with its own private stack, so they never compete for the host's two cores.
        test: {
          name: 'integration',
          root: 'runner',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      { test: { name: 'action', root: 'action', include: ['test/**/*.test.ts'] } },
      { test: { name: 'site', root: 'site', include: ['test/**/*.test.ts'] } },
    ],
  },
});
