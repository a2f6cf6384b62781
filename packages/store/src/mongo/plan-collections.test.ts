// Each named query is sent to the collection its plan is for, read from the adapter's source
// without a server. A plan's `_id_` hint suits any collection, so a plan of one collection sent
// to another runs, but under the wrong name: the slow-query log, the profiler, `$currentOp` and
// query-plans.test.ts then speak of a query that did not happen. query-plans.test.ts checks the
// same on a real server where MONGODB_URL is set.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTIONS } from './connection.ts';
import { PLAN_AREAS as AREAS } from './plans/index.ts';
import type { AnyPlan } from './plans/plan.ts';

const METHODS =
  'find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|updateOne|updateMany|deleteOne|deleteMany|replaceOne|countDocuments|aggregate';
/**
 * `<receiver>.<method>(<first argument>`, across lines: the receiver's last name is its
 * collection's; the first argument is `<plan>.filter` (or `.pipeline`), a plan called in place
 * (`P.x(…).filter`), or anything else — which the test reports, so no sending goes unread.
 */
const SENT = new RegExp(`([\\w$]+)\\s*\\.(?:${METHODS})\\(\\s*([\\w$]+\\.[\\w$]+\\([^;]*?\\)\\.(?:filter|pipeline)\\b|[^,)]*)`, 'g');

interface Sending {
  at: string;
  plan: string;
  planCollection: string;
  sentTo: string;
  /** The call passes a session (runs in a transaction). */
  inSession: boolean;
}

/** Every sending in `source` whose filter comes from a plan bound just before it (`const q = P.byId(…)`). */
export function sendings(file: string, source: string): { checked: Sending[]; unresolved: string[] } {
  const aliases = new Map<string, Readonly<Record<string, AnyPlan>>>();
  for (const m of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\/plans\/[a-z-]+\.ts'/g)) {
    for (const part of m[1]!.split(',')) {
      const [name, alias = name] = part.trim().split(/\s+as\s+/) as [string, string | undefined];
      if (AREAS[name] !== undefined) aliases.set(alias, AREAS[name]);
    }
  }
  const checked: Sending[] = [];
  const unresolved: string[] = [];
  for (const m of source.matchAll(SENT)) {
    const [, receiver, first] = m as unknown as [string, string, string];
    const sentTo = (COLLECTIONS as Record<string, string>)[receiver];
    if (sentTo === undefined) continue; // not a collection (a Map's find, an array's)
    const line = source.slice(0, m.index).split('\n').length;
    const at = `${file}:${line}`;
    // The call's options, up to its end: a session means a transaction.
    const call = source.slice(m.index, source.indexOf(';', m.index));
    const inSession = /\bsession\b/.test(call);
    const inPlace = /^([\w$]+)\.([\w$]+)\(.*\)\.(?:filter|pipeline)$/s.exec(first.trim());
    const variable = /^([\w$]+)\.(?:filter|pipeline)$/.exec(first.trim())?.[1];
    let bound = '';
    if (inPlace !== null) bound = `${inPlace[1]}.${inPlace[2]}(`;
    else if (variable !== undefined) {
      // The nearest binding of the variable before the sending (names like `q` are reused per
      // function), to its statement's end: each plan it may hold (`a ? P.x(…) : P.y(…)`) is
      // checked. A parameter of that name after it (`(q: Sent)`) means the plan is passed in.
      const before = source.slice(0, m.index);
      const bindings = [...before.matchAll(new RegExp(`\\b${variable}\\s*=(?!=)([^;]*);`, 'g'))];
      const last = bindings[bindings.length - 1];
      const passedIn = new RegExp(`[(,]\\s*${variable}\\s*[:?,)]`).test(before.slice((last?.index ?? 0) + (last?.[0].length ?? 0)));
      bound = passedIn ? '' : (last?.[1] ?? '');
    }
    const plans = [...bound.matchAll(/\b([\w$]+)\.([\w$]+)\(/g)].flatMap(([, alias, key]) => {
      const plan = aliases.get(alias!)?.[key!];
      return plan === undefined ? [] : [plan];
    });
    if (plans.length === 0) {
      unresolved.push(`${at}: ${receiver} ← ${first.trim().split('\n')[0]}`);
      continue;
    }
    for (const plan of plans) checked.push({ at, plan: plan.planName, planCollection: plan.spec.collection, sentTo, inSession });
  }
  return { checked, unresolved };
}

/**
 * Sendings whose plan comes in as an argument, `file: receiver ← variable`, with the plans it
 * can be: each of them is of the receiver's collection.
 */
const PASSED_IN: Record<string, string> = {
  'connection.ts: meta ← MONTHS_LIST.filter': 'months.list, spelled out where the plans cannot be imported (months.test.ts holds the two equal)',
  'endpoint-put-off.ts: deliveries ← q.filter': 'deliveries.putOffByHold or deliveries.putOffPending, as its callers choose',
  'endpoint-repo.ts: endpoints ← q.filter': 'endpoints.certificatesExpiringTies or endpoints.certificatesExpiringFrom (certificatesExpiring)',
  'message-list.ts: messages ← cut.filter': "listPlan's page: one of messages.listOf…, by the page's filters (cut at the budget's edge, or not)",
  'message-list.ts: messages ← window.filter': "listPlan's window: one of messages.listWindow…, the page's index's keys (its count and edge)",
  'month-buckets.ts: dueEndpoints ← range.filter': 'deliveries.dueEntriesOfMonth or deliveries.dueEntriesBefore (of due_endpoints)',
};

const DIR = import.meta.dirname;
const SOURCES = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => ({ file: f, source: readFileSync(join(DIR, f), 'utf8') }));

describe('MongoDB plans and their collections', () => {
  it('sends each named query to the collection its plan names', () => {
    const all = SOURCES.map(({ file, source }) => sendings(file, source));
    const checked = all.flatMap((s) => s.checked);
    // The adapter sends about two hundred of them this way; a handful would mean the reading broke.
    expect(checked.length).toBeGreaterThan(150);
    const unresolved = all.flatMap((s) => s.unresolved).map((u) => u.replace(/:\d+:/, ':'));
    expect([...new Set(unresolved)].sort()).toEqual(Object.keys(PASSED_IN).sort());
    const wrong = checked.filter((s) => s.planCollection !== s.sentTo).map((s) => `${s.at}: ${s.plan} (${s.planCollection}) sent to ${s.sentTo}`);
    expect(wrong).toEqual([]);
    // A plan with a write concern of its own (a claim's) in a transaction: the driver drops it
    // silently and the commit's applies, without the claim's 5 s bound.
    const pinned = new Set(
      Object.values(AREAS)
        .flatMap((area) => Object.values(area))
        .filter((p) => p.spec.writeConcern !== undefined)
        .map((p) => p.planName),
    );
    const pinnedSendings = new Set(checked.filter((s) => pinned.has(s.plan)).map((s) => `${s.plan} in a session: ${s.inSession}`));
    expect([...pinnedSendings].sort()).toEqual([...pinned].map((name) => `${name} in a session: false`).sort());
  });

  it('tells a plan sent to another collection', () => {
    const source = [
      "import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';",
      "import { ENDPOINTS_PLANS as EP } from './plans/endpoints.ts';",
      'const e = P.byId(t, endpointId);',
      'await conn.endpoints.findOne(e.filter, e.options);',
      'const f = ok ? EP.byId(t, endpointId) : P.byId(t, endpointId);',
      'await conn\n  .endpoints.findOne(\n    f.filter, f.options);',
      'await conn.messages.find(P.byId(t, id).filter, { session });',
      'const read = (f: Sent) => conn.endpoints.find(f.filter);',
      'await conn.endpoints.find({ _id: 1 });',
    ].join('\n');
    const { checked, unresolved } = sendings('x.ts', source);
    expect(checked.map((s) => [s.plan, s.sentTo, s.inSession])).toEqual([
      ['deliveries.byId', 'endpoints', false],
      ['endpoints.byId', 'endpoints', false],
      ['deliveries.byId', 'endpoints', false],
      ['deliveries.byId', 'messages', true],
    ]);
    // A plan passed in, and a filter of no plan: told, not passed over.
    expect(unresolved).toEqual(['x.ts:10: endpoints ← f.filter', 'x.ts:11: endpoints ← { _id: 1 }']);
  });
});
