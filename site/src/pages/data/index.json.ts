// /data/index.json: every run with its targets, for the compare page's client to pick from.
import type { APIRoute } from 'astro';
import { siteData } from '../../data.ts';
import { compareRunRefs } from '../../lib/compare-data.ts';

export const GET: APIRoute = () =>
  new Response(JSON.stringify(compareRunRefs(siteData().loaded)), {
    headers: { 'content-type': 'application/json' },
  });
