import { useState } from 'preact/hooks';
import { api, ApiError } from './api.ts';
import type { Ctx } from './ctx.ts';
import { fieldErrorText } from './field-errors.ts';

/**
 * A panel's own PATCH of its endpoint (ordering, rate limit, network and signature): busy while
 * it runs, the API's 422 message kept for under the form (`error`, as the API wrote it, for
 * telling its field; `said`, in the page's language), a notice once saved, and the page told to
 * read the endpoint again. Other failures go to the page's error handling.
 */
export function useEndpointPatch(ctx: Ctx, endpointId: string, onChange: () => void) {
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** @returns whether it was saved. */
  const patch = async (body: Record<string, unknown>, savedText: string = ctx.t.t('saved')): Promise<boolean> => {
    setBusy(true);
    setNotice(null);
    setError(null);
    try {
      await api('PATCH', `/endpoints/${endpointId}`, body);
      setNotice(savedText);
      onChange();
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setError(err.message);
      else ctx.fail(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, notice, error, said: error === null ? null : fieldErrorText(ctx.t, error), patch };
}
