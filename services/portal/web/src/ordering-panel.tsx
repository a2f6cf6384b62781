import { useState } from 'preact/hooks';
import type { EndpointDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import { Notice } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';

type Ordering = EndpointDetail['ordering'];

/**
 * Delivery order (issue 31): any order, or one at a time per ordering key. A panel of its own,
 * saved with its own PATCH, so the settings form above it stays as it is.
 */
export function OrderingPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const [ordering, setOrdering] = useState<Ordering>(endpoint.ordering);
  const { busy, notice, error, said, patch } = useEndpointPatch(ctx, endpoint.id, onChange);
  const save = (e: Event) => {
    e.preventDefault();
    void patch({ ordering });
  };

  const option = (value: Ordering, label: 'orderingNone' | 'orderingKey') => (
    <label class="check">
      <input type="radio" name="ep-ordering" value={value} checked={ordering === value} onChange={() => setOrdering(value)} /> {t.t(label)}
    </label>
  );
  return (
    <form class="panel" onSubmit={save}>
      <h2 id="ordering-title">{t.t('ordering')}</h2>
      <fieldset class="field" aria-labelledby="ordering-title" aria-describedby="ordering-help ordering-error">
        <p id="ordering-help" class="help">
          {t.t('orderingHelp')}
        </p>
        {option('none', 'orderingNone')}
        {option('key', 'orderingKey')}
      </fieldset>
      {error && (
        <p id="ordering-error" class="field-error">
          {said}
        </p>
      )}
      <button type="submit" disabled={busy || ordering === endpoint.ordering}>
        {busy ? t.t('saving') : t.t('orderingSave')}
      </button>
      {notice && <Notice kind="ok">{notice}</Notice>}
    </form>
  );
}
