import { render } from 'preact';
import { takeToken } from './api.ts';
import { App } from './app.tsx';
import { Gone } from './gone.tsx';
import { chooseLocale } from './i18n.ts';
import './styles.css';
import './components.css';

// The token arrives in the path (/l/<token>); it leaves the address bar (and so the history,
// screenshots and shared URLs) at once: the page goes on at /r/<session>, where a reload
// finds the link's frame origin and language, and the token in this tab's storage. A route
// in the link's hash (#/messages/msg_…) is kept: it holds ids only.
const token = takeToken();
const session = document.querySelector<HTMLMetaElement>('meta[name="wirehook-session"]')?.content ?? '';
const params = new URLSearchParams(location.search);
if (location.pathname.startsWith('/l/')) history.replaceState(null, '', `/r/${session}${location.search}${location.hash}`);

// Theme: ?theme=dark|light, else the system's; an `accent` colour (#rrggbb) to match the sender's brand.
const root = document.documentElement;
const theme = params.get('theme');
if (theme === 'dark' || theme === 'light') root.dataset['theme'] = theme;
const accent = params.get('accent');
if (accent && /^#?[0-9a-fA-F]{6}$/.test(accent)) root.style.setProperty('--accent', accent.startsWith('#') ? accent : `#${accent}`);

const locale = chooseLocale(null, root.lang);
const app = document.getElementById('app')!;
// The server serves this page only for a link still valid (an expired or unknown one gets its
// own page): without a token here, the link was opened in another browser or tab.
render(token ? <App initialLocale={locale} /> : <Gone locale={locale} reason="not-here" />, app);
