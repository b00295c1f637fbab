// /data/matrix/<host class>.json: the cells of one host class's matrix (raw samples included), for
// the matrix page's client to recompute best, ratios and tests from the columns a filter leaves
// visible, or against a chosen reference (client/matrix.ts). Fetched only when asked for.
import type { APIRoute } from 'astro';
import { siteData } from '../../../data.ts';
import type { MatrixData } from '../../../lib/matrix-row.ts';
import { matrixInputs } from '../../../lib/views/overview.ts';

export async function getStaticPaths() {
  const { index } = await siteData();
  return index.hostClasses.map((h) => ({ params: { host: h.id } }));
}

export const GET: APIRoute = async ({ params }) => {
  const { index } = await siteData();
  const inputs = matrixInputs(index).find((h) => h.host.id === params.host)!;
  const data: MatrixData = {
    parameterSets: index.parameterSets,
    columns: inputs.columns.map((c) => ({
      label: c.label,
      combo: c.combo,
      run: { runId: c.run.runId, startedAt: c.run.startedAt },
    })),
    rows: Object.fromEntries(
      inputs.rows.map(({ metric, found }) => [
        metric.slug,
        {
          unit: metric.unit,
          direction: metric.direction,
          label: `${metric.benchmark} · ${metric.metric}`,
          cells: found.map((o) =>
            o
              ? {
                  run: o.run,
                  origin: o.origin,
                  status: o.status,
                  reason: o.reason,
                  samples: o.samples,
                  median: o.median,
                  errors: o.errors,
                  parameters: o.parameters,
                  enforcement: o.enforcement,
                }
              : null,
          ),
        },
      ]),
    ),
  };
  return new Response(JSON.stringify(data), { headers: { 'content-type': 'application/json' } });
};
