/// <reference types="astro/client" />
/** The data directory, resolved by astro.config.ts. */
declare const __RB_DATA_DIR__: string;
/** How result files are loaded: the worker thread's entry and the digest cache, from astro.config.ts. */
declare const __RB_LOAD__: import('./lib/site-data.ts').LoadSettings;
