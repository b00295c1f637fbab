// The site's slugs are the runner's (runner/src/results/site-path.ts), the one place that also
// tells the action where the site puts a metric's page.
export { slugify } from '@runtime-bench/runner/site-paths';
