import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'site/dist/**', 'site/.astro/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The CLI's bin shim is plain JavaScript run by Node.
    files: ['**/bin/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
