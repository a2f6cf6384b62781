// The view in the address bar, so deep links, a reload and the browser's Back and Forward
// work: a hash after /r/<session> (`#/endpoints/ep_…`, `#/messages/msg_…`, `#/event-types/order.created`).
// It holds ids and event type names only: never the token (which lives in memory and this tab's storage) nor a new secret.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { View } from './ctx.ts';

const ID = /^[A-Za-z0-9_-]{1,100}$/;
/** An event type's name, as the API allows it. */
const EVENT_TYPE = /^[A-Za-z0-9_.:-]{1,100}$/;

/** The hash of `view` (a new endpoint's secret stays out of it). */
export function hashOf(view: View): string {
  switch (view.name) {
    case 'endpoints':
      return '#/endpoints';
    case 'new':
      return '#/endpoints/new';
    case 'endpoint':
      return `#/endpoints/${encodeURIComponent(view.id)}`;
    case 'deliveries':
      return '#/deliveries';
    case 'message':
      return `#/messages/${encodeURIComponent(view.id)}`;
    case 'catalog':
      return view.entry === undefined ? '#/event-types' : `#/event-types/${encodeURIComponent(view.entry)}`;
  }
}

/** The view a hash names; the endpoint list for an empty or unknown one. */
export function viewOf(hash: string): View {
  const [, section, rawId] = /^#\/(endpoints|deliveries|messages|event-types)(?:\/([^/?#]*))?$/.exec(hash) ?? [];
  const id = rawId === undefined ? undefined : safeDecode(rawId);
  if (section === 'deliveries' && id === undefined) return { name: 'deliveries' };
  if (section === 'event-types' && id === undefined) return { name: 'catalog' };
  if (section === 'event-types' && id !== undefined && EVENT_TYPE.test(id)) return { name: 'catalog', entry: id };
  if (section === 'messages' && id !== undefined && ID.test(id)) return { name: 'message', id };
  if (section === 'endpoints' && id === 'new') return { name: 'new' };
  if (section === 'endpoints' && id !== undefined && ID.test(id)) return { name: 'endpoint', id };
  return { name: 'endpoints' };
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * The current view and a way to go to another: going pushes a history entry (the path and
 * query stay: only the hash changes), Back and Forward and an edited hash come back as views,
 * with focus moved to the new view's heading.
 */
export function useRoute(): [View, (next: View) => void] {
  const [view, setView] = useState<View>(() => viewOf(location.hash));
  useEffect(() => {
    const follow = () => {
      setView((current) => (hashOf(current) === location.hash ? current : viewOf(location.hash)));
      requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
    };
    addEventListener('popstate', follow);
    addEventListener('hashchange', follow);
    return () => {
      removeEventListener('popstate', follow);
      removeEventListener('hashchange', follow);
    };
  }, []);
  const go = useCallback((next: View) => {
    const hash = hashOf(next);
    if (location.hash !== hash) history.pushState(null, '', hash);
    setView(next);
  }, []);
  return [view, go];
}
