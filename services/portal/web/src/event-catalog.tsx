import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type EventType, type EventTypeSummary } from './api.ts';
import { CopyButton } from './copy-button.tsx';
import type { Ctx } from './ctx.ts';
import './event-catalog.css';
import { SchemaTree } from './schema-tree.tsx';
import { Loading, Notice, Pill, Time } from './ui.tsx';

/** The id of an event type's entry on the page (its heading's is `${id}-name`); names hold only `A-Za-z0-9_.:-`, all valid in an id. */
export const entryId = (name: string): string => `event-${name}`;

/**
 * The event catalog: every event type the sender registered, with its description, version,
 * whether it is deprecated and whether payloads are checked; opening one reads its schema (a
 * tree, the JSON on demand) and its first example. `entry` (a deep link, `#/event-types/<name>`)
 * opens that one and moves focus to it.
 */
export function EventCatalog({ ctx, entry }: { ctx: Ctx; entry: string | null }) {
  const { t } = ctx;
  const known = entry === null || ctx.eventTypes.some((e) => e.name === entry);

  useEffect(() => {
    if (entry === null || !known) return;
    // After the route's own focus move (to the page's h1): the entry asked for is where the reader goes.
    const frame = requestAnimationFrame(() => {
      const heading = document.getElementById(`${entryId(entry)}-name`);
      heading?.scrollIntoView({ block: 'start' });
      heading?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [entry, known]);

  return (
    <section>
      <h1 tabIndex={-1}>{t.t('tabCatalog')}</h1>
      <p class="help">{t.t('catalogHelp')}</p>
      {!known && <Notice kind="warn">{t.t('catalogNotFound', { name: entry ?? '' })}</Notice>}
      {ctx.eventTypes.length === 0 ? (
        <div class="empty">
          <p>{t.t('catalogEmpty')}</p>
        </div>
      ) : (
        <ul class="cards">
          {ctx.eventTypes.map((e) => (
            <CatalogEntry key={`${e.name}-${e.name === entry}`} ctx={ctx} type={e} opened={e.name === entry} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** What a type's list line says about its payloads: checked against a schema, described only, or not described. */
function checkedKey(type: EventTypeSummary) {
  if (!type.has_schema) return 'catalogNoSchema';
  return type.validation === 'enforce' ? 'catalogEnforced' : 'catalogNotEnforced';
}

function CatalogEntry({ ctx, type, opened }: { ctx: Ctx; type: EventTypeSummary; opened: boolean }) {
  const { t } = ctx;
  const id = entryId(type.name);
  const [open, setOpen] = useState(opened);
  const [detail, setDetail] = useState<EventType | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open || detail !== null) return;
    setError(null);
    api<EventType>('GET', `/event-types/${encodeURIComponent(type.name)}`).then(setDetail, (err: unknown) => {
      if (err instanceof ApiError && err.status !== 401) setError(err.message);
      else ctx.fail(err);
    });
  }, [open, detail]);

  return (
    <li class="card catalog-entry" id={id}>
      <div class="row spread">
        <h2 id={`${id}-name`} class="catalog-name" tabIndex={-1}>
          <code>{type.name}</code>
        </h2>
        <span class="pills">
          {type.deprecated && <Pill kind="deprecated">{t.t('catalogDeprecated')}</Pill>}
          <Pill kind="none">{t.t('catalogVersion', { n: type.version })}</Pill>
        </span>
      </div>
      {type.description && <p>{type.description}</p>}
      {type.deprecated && <p class="help">{t.t('catalogDeprecatedHelp')}</p>}
      <p class="muted small">
        <span class={type.validation === 'enforce' && type.has_schema ? 'checked' : undefined}>{t.t(checkedKey(type))}</span> ·{' '}
        {t.t('catalogUpdated', { time: '' })}
        <Time t={t} at={type.updated_at} />
      </p>
      <button type="button" class="link" aria-expanded={open} aria-controls={`${id}-detail`} onClick={() => setOpen(!open)}>
        {open ? t.t('catalogHide') : t.t('catalogShow')}
      </button>
      <div id={`${id}-detail`} hidden={!open}>
        {open && error && <Notice kind="error">{t.t('errorGeneric', { message: error })}</Notice>}
        {open && !error && (detail === null ? <Loading t={t} /> : <EntryDetail ctx={ctx} id={id} detail={detail} />)}
      </div>
    </li>
  );
}

function EntryDetail({ ctx, id, detail }: { ctx: Ctx; id: string; detail: EventType }) {
  const { t } = ctx;
  const [json, setJson] = useState(false);
  const example = detail.examples[0];
  const exampleText = example === undefined ? null : JSON.stringify(example, null, 2);
  return (
    <div class="catalog-detail">
      <div class="row spread">
        <h3 id={`${id}-schema`}>{t.t('catalogSchema')}</h3>
        {detail.schema !== null && (
          <button type="button" aria-pressed={json} onClick={() => setJson(!json)}>
            {t.t('catalogShowJson')}
          </button>
        )}
      </div>
      {detail.schema === null ? (
        <p class="muted">{t.t('catalogSchemaNone')}</p>
      ) : json ? (
        <pre class="payload catalog-json" tabIndex={0}>
          <code>{JSON.stringify(detail.schema, null, 2)}</code>
        </pre>
      ) : (
        <SchemaTree t={t} schema={detail.schema} labelledBy={`${id}-schema`} />
      )}
      <p class="help">{t.t('catalogEnvelope')}</p>
      <div class="row spread">
        <h3 id={`${id}-example`}>{t.t('catalogExample')}</h3>
        {exampleText !== null && <CopyButton t={t} text={exampleText} label={t.t('catalogExample')} />}
      </div>
      {exampleText === null ? (
        <p class="muted">{t.t('catalogExampleNone')}</p>
      ) : (
        // Focusable: a keyboard can scroll a long example.
        <pre class="payload catalog-json" tabIndex={0}>
          <code>{exampleText}</code>
        </pre>
      )}
    </div>
  );
}
