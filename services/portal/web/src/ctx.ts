import type { EventTypeSummary, Session } from './api.ts';
import type { Translator } from './i18n.ts';

// What every view of the page is handed (the App makes it): kept apart from app.tsx, which
// imports every view, so no view imports the App back.

/** Where the viewer is: state, mirrored in the address's hash (routes.ts: ids only, never the token). */
export type View =
  | { name: 'endpoints' }
  /** `secret`: the one just created, shown once on arrival. */
  | { name: 'endpoint'; id: string; secret?: string }
  | { name: 'new' }
  | { name: 'deliveries' }
  | { name: 'message'; id: string }
  /** The event catalog; `entry`: the event type opened (a deep link from an endpoint's picker). */
  | { name: 'catalog'; entry?: string };

export interface Ctx {
  t: Translator;
  session: Session;
  /** The sender's event types, archived ones left out (the list: no schemas or examples). */
  eventTypes: EventTypeSummary[];
  go(view: View): void;
  /** Shows an error from an action (the field's own errors are shown next to it). */
  fail(err: unknown): void;
}
