import type { NextFunction, Request, Response } from 'express';
import type { DeliveryStatus, MessageId, MessageRowResponse, Tenant } from '@wirehook/core';
import { authOf } from '@wirehook/http-api';
import type { PortalDeps } from '../deps.ts';

/** A message row of the portal's list: the API's, with how many of its deliveries are in each status. */
export type PortalMessageRow = MessageRowResponse & { delivery_statuses: Partial<Record<DeliveryStatus, number>> };

/**
 * The page shows a message's deliveries by status ("Delivered 1 · Failed 1"; none: "no
 * endpoint matched"): the message status alone says `failed` for a message one endpoint took,
 * and `success` for one no endpoint took. Adds `delivery_statuses` to the rows of the list the
 * /v1 route answers, read for the whole page at once (at most 100 rows).
 */
export function deliveryStatusesOnRows(deps: Pick<PortalDeps, 'store'>) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      res.json = json;
      const items = (body as { items?: MessageRowResponse[] } | null)?.items;
      if (res.statusCode !== 200 || !Array.isArray(items)) return json(body);
      withStatuses(deps, authOf(res).tenant, items)
        .then((rows) => json({ ...(body as object), items: rows }))
        .catch(next);
      return res;
    };
    next();
  };
}

// One store read for the page (a row with no delivery, null `endpoint_url`, needs none).
async function withStatuses(deps: Pick<PortalDeps, 'store'>, tenant: Tenant, items: MessageRowResponse[]): Promise<PortalMessageRow[]> {
  const ids = items.filter((row) => row.endpoint_url !== null).map((row) => row.id as MessageId);
  const counts = ids.length === 0 ? {} : await deps.store.messages.deliveryStatuses(tenant, ids);
  return items.map((row) => ({ ...row, delivery_statuses: counts[row.id] ?? {} }));
}
