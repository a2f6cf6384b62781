// The Helm chart's checks that need no Helm: values.yaml against values.schema.json (and a typo
// refused), the alert rules and dashboard queries with promtool, the README's values table.
// What Helm renders (and each service's environment in it) is checked in helm*.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isMap, isScalar, parse, parseDocument, stringify, type Node } from 'yaml';
import { createRegistry } from '@wirehook/platform';
import { expect, it } from 'vitest';
import { chartValuesTable, README_PATH } from '../../scripts/chart-readme.ts';

const chart = join(import.meta.dirname, '..', '..', 'charts', 'wirehook');
const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')) as object;
const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, any>;
const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validate = ajv.compile(schema);

it('values.yaml is valid; a typo, a wrong type or a malformed URL is refused', () => {
  expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
  const cases: [string, Record<string, any>][] = [
    ['a typo at the top', { ...values, portalPublicURL: 'https://x' }],
    ['a typo in a service', { ...values, services: { ...values['services'], dispatcher: { ...values['services'].dispatcher, replica: 3 } } }],
    ['replicas as text', { ...values, services: { ...values['services'], gateway: { ...values['services'].gateway, replicas: 'two' } } }],
    ['a MongoDB URL that is not one', { ...values, mongodbUrl: 'postgres://db' }],
    ['a relay address that is not an IP', { ...values, relay: { ...values['relay'], sourceIps: ['relay.example.com'] } }],
  ];
  for (const [what, bad] of cases) expect(validate(bad), what).toBe(false);
  expect(validate({ ...values, relay: { ...values['relay'], sourceIps: ['203.0.113.7', '2001:db8::7'] } }), JSON.stringify(validate.errors)).toBe(true);
});

it('the alert rules pass promtool check rules', () => {
  const res = spawnSync('promtool', ['check', 'rules', join(chart, 'files', 'alerts.yaml')], { encoding: 'utf8' });
  if (res.error) throw new Error(`promtool is needed (./dev test installs prometheus): ${res.error.message}`);
  expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
  expect(res.stdout).toContain('SUCCESS: 9 rules found');
});

it('the Grafana dashboard: every panel’s query is valid PromQL (checked by promtool) and names a metric Wirehook exports', async () => {
  const dashboard = JSON.parse(readFileSync(join(chart, 'files', 'dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ title: p.title, expr: t.expr })));
  expect(exprs.length).toBeGreaterThan(10);
  // promtool validates PromQL in rule files: each query as a recording rule.
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-dashboard-'));
  const rules = { groups: [{ name: 'dashboard', rules: exprs.map((e, i) => ({ record: `dashboard:panel_${i}`, expr: e.expr })) }] };
  writeFileSync(join(dir, 'rules.yaml'), stringify(rules));
  const res = spawnSync('promtool', ['check', 'rules', join(dir, 'rules.yaml')], { encoding: 'utf8' });
  expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
  // Only metrics that exist: those our code declares (Wirehook's, gRPC's) and Node's defaults
  // in every process's registry. Label names (`by (grpc_method)`, `{grpc_code="OK"}`) are not metrics.
  const exported = new Set([...declaredMetricNames(), ...(await createRegistry('check').getMetricsAsJSON()).map((m) => m.name)]);
  for (const { title, expr } of exprs) {
    const selectors = expr.replace(/\b(by|without)\s*\([^)]*\)/g, '').replace(/\{[^}]*\}/g, '');
    const names = selectors.match(/\b(wirehook|process|nodejs|grpc)_[a-z_]+\b/g) ?? [];
    expect(names.length, title).toBeGreaterThan(0);
    for (const name of names) expect(exported, `${title}: ${name}`).toContain(name.replace(/_(bucket|sum|count)$/, ''));
  }
});

/** Every metric name our source declares (`name: 'wirehook_…'`, `name: 'grpc_…'`). */
function declaredMetricNames(): string[] {
  const root = join(import.meta.dirname, '..', '..');
  const names: string[] = [];
  // Walked by hand, never into node_modules or build output: a recursive readdir listed the
  // portal's front-end dependencies too (over 600 000 entries, 30 s on a busy machine).
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', '.wirehook'].includes(entry.name) && !entry.name.startsWith('.')) walk(join(dir, entry.name));
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        for (const m of readFileSync(join(dir, entry.name), 'utf8').matchAll(/name: '((?:wirehook|grpc)_[a-z_]+)'/g)) names.push(m[1]!);
      }
    }
  };
  for (const dir of ['packages', 'services']) walk(join(root, dir));
  return names;
}

it("the README's values table is the one generated from values.yaml (run `pnpm chart-readme`)", () => {
  const readme = readFileSync(README_PATH, 'utf8');
  expect(readme).toContain(chartValuesTable());
  expect(chartValuesTable()).toContain('| `services.dispatcher.autoscaling.maxReplicas` |');
  // Every value says what it is: a row with an empty last cell is a value values.yaml left uncommented.
  const undocumented = chartValuesTable()
    .split('\n')
    .filter((row) => row.startsWith('| `') && row.endsWith('|  |'));
  expect(undocumented).toEqual([]);
});

it('every value in values.yaml has a comment of its own, so no README row takes its parent’s (or the file header’s) for its own', () => {
  const doc = parseDocument(readFileSync(join(chart, 'values.yaml'), 'utf8'));
  const own = (node: Node | null | undefined) => Boolean((node as { commentBefore?: string | null } | null)?.commentBefore?.trim());
  const missing: string[] = [];
  const walk = (node: Node | null | undefined, path: string): void => {
    if (!isMap(node)) return;
    node.items.forEach((pair, i) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const here = path ? `${path}.${key}` : key;
      const value = pair.value as Node | null;
      // A block map with keys is a heading: its keys are the rows.
      if (isMap(value) && !value.flow && value.items.length > 0) return walk(value, here);
      if (!own(pair.key as Node) && !(i === 0 && own(node))) missing.push(here);
    });
  };
  walk(doc.contents, '');
  expect(missing).toEqual([]);
  // The file's header is the document's, not the first value's.
  expect(chartValuesTable()).not.toContain("Wirehook's Helm values");
});
