import type { NextFunction, Request, Response } from 'express';
import type { DeliveryStatus, MessageId, MessageRowResponse, Tenant } from '@wirehook/core';
import { authOf } from '@wirehook/gateway';
import type { PortalDeps } from '../deps.ts';

/** A message row of the portal's list: the API's, with how many of its deliveries are in each status. */
export type PortalMessageRow = MessageRowResponse & { delivery_statuses: Partial<Record<DeliveryStatus, number>> };

/**
 * The page shows a message's deliveries by status ("Delivered 1 · Failed 1"; none: "no
 * endpoint matched"): the message status alone says `failed` for a message one endpoint took,
 * and `success` for one no endpoint took. Adds `delivery_statuses` to the rows of the list the
 * /v1 route answers (a page is at most 100 rows; a row with no delivery, null `endpoint_url`,
 * is not read again).
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

// One message read per row: the store's list has no per-status counts to read them from
// (MessageSummary; a port change, left to the store's owners).
async function withStatuses(deps: Pick<PortalDeps, 'store'>, tenant: Tenant, items: MessageRowResponse[]): Promise<PortalMessageRow[]> {
  return Promise.all(
    items.map(async (row): Promise<PortalMessageRow> => {
      if (row.endpoint_url === null) return { ...row, delivery_statuses: {} };
      const detail = await deps.store.messages.get(tenant, row.id as MessageId);
      if (detail === null) return { ...row, delivery_statuses: {} };
      const counts: Partial<Record<DeliveryStatus, number>> = {};
      for (const { delivery } of detail.deliveries) counts[delivery.status] = (counts[delivery.status] ?? 0) + 1;
      return { ...row, delivery_statuses: counts };
    }),
  );
}
