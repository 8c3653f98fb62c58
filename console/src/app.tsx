/**
 * The console's frame: a skip link, the navigation, the live indicator, the unread
 * notification count and the signed-in person, around the page the URL names. Every
 * `href` the API hands out (`/cases/<id>`, `/runs/<id>`, `/alerts/<id>` under
 * SVC_PUBLIC_PREFIX) is a route here; routes.ts lists them.
 */
import { lazy, memo, type ReactElement, Suspense, useState } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes, useNavigate } from 'react-router';
import { answer, client } from './api.ts';
import { publicPrefix } from './config.ts';
import { LiveProvider, useLiveStatus } from './live.tsx';
import { MeProvider, useMe } from './me.tsx';
import { AlertsPage } from './pages/alerts.tsx';
import { CaseListPage } from './pages/case-list.tsx';
import { useResource } from './resource.ts';
import { type ConsolePath, consolePaths } from './routes.ts';
import { ShortcutProvider, useShortcut } from './shortcuts.tsx';
import { Loading } from './ui.tsx';
import { ThemePicker, ThemeProvider } from './theme.tsx';

// Split off: every page but the two an analyst lands on (the alert inbox and the case list), with the graph library, the code
// editor, the chart library and the case page's panels, loads when first opened, so those two parse and render sooner
// (bench/console-case-list.ts).
const EffectsPage = lazy(() => import('./pages/effects.tsx').then((module) => ({ default: module.EffectsPage })));
const ApprovalsPage = lazy(() => import('./pages/approvals.tsx').then((module) => ({ default: module.ApprovalsPage })));
const NotificationsPage = lazy(() => import('./pages/notifications.tsx').then((module) => ({ default: module.NotificationsPage })));
const RunPage = lazy(() => import('./pages/run.tsx').then((module) => ({ default: module.RunPage })));
const RunsPage = lazy(() => import('./pages/runs.tsx').then((module) => ({ default: module.RunsPage })));
const ConnectionsPage = lazy(() => import('./pages/settings-connections.tsx').then((module) => ({ default: module.ConnectionsPage })));
const PacksPage = lazy(() => import('./pages/settings-packs.tsx').then((module) => ({ default: module.PacksPage })));
const AiSettingsPage = lazy(() => import('./pages/settings-ai.tsx').then((module) => ({ default: module.AiSettingsPage })));
const AuditPage = lazy(() => import('./pages/settings-audit.tsx').then((module) => ({ default: module.AuditPage })));
const PolicyPage = lazy(() => import('./pages/settings-policy.tsx').then((module) => ({ default: module.PolicyPage })));
const RetentionPage = lazy(() => import('./pages/settings-retention.tsx').then((module) => ({ default: module.RetentionPage })));
const WebhookSourcesPage = lazy(() => import('./pages/settings-webhook-sources.tsx').then((module) => ({ default: module.WebhookSourcesPage })));
const CustomActionsPage = lazy(() => import('./pages/settings-custom-actions.tsx').then((module) => ({ default: module.CustomActionsPage })));
const CustomFieldsPage = lazy(() => import('./pages/settings-custom-fields.tsx').then((module) => ({ default: module.CustomFieldsPage })));
const CasePage = lazy(() => import('./pages/case.tsx').then((module) => ({ default: module.CasePage })));
const RunbookPage = lazy(() => import('./pages/runbook.tsx').then((module) => ({ default: module.RunbookPage })));
const RunbookEditorPage = lazy(() => import('./pages/runbook-editor.tsx').then((module) => ({ default: module.RunbookEditorPage })));
const CustomActionPage = lazy(() => import('./pages/custom-action.tsx').then((module) => ({ default: module.CustomActionPage })));
const MetricsPage = lazy(() => import('./pages/metrics.tsx').then((module) => ({ default: module.MetricsPage })));
const SearchPage = lazy(() => import('./pages/search.tsx').then((module) => ({ default: module.SearchPage })));
const RunbookListPage = lazy(() => import('./pages/runbook-list.tsx').then((module) => ({ default: module.RunbookListPage })));

/** The page of each route; keyed by `ConsolePath`, so a path without a page, or a page without a path, does not compile. */
const pages: Record<ConsolePath, ReactElement> = {
  '/': <Navigate to="/cases" replace />,
  '/alerts': <AlertsPage />,
  '/alerts/:id': <AlertsPage />,
  '/cases': <CaseListPage />,
  '/cases/:id': <CasePage />,
  '/runbooks': <RunbookListPage />,
  '/runbooks/new': <RunbookEditorPage />,
  '/runbooks/:slug': <RunbookPage />,
  '/runbooks/:slug/edit': <RunbookEditorPage />,
  '/runs': <RunsPage />,
  '/effects': <EffectsPage />,
  '/runs/:id': <RunPage />,
  '/approvals': <ApprovalsPage />,
  '/metrics': <MetricsPage />,
  '/notifications': <NotificationsPage />,
  '/search': <SearchPage />,
  '/settings/connections': <ConnectionsPage />,
  '/settings/packs': <PacksPage />,
  '/settings/policy': <PolicyPage />,
  '/settings/webhook-sources': <WebhookSourcesPage />,
  '/settings/custom-actions': <CustomActionsPage />,
  '/settings/custom-actions/new': <CustomActionPage />,
  '/settings/custom-actions/:id': <CustomActionPage />,
  '/settings/custom-fields': <CustomFieldsPage />,
  '/settings/audit': <AuditPage />,
  '/settings/retention': <RetentionPage />,
  '/settings/ai': <AiSettingsPage />,
};

function UnreadCount() {
  const unread = useResource(
    async () => answer(await client.GET('/notifications', { params: { query: { unread_only: 'true', limit: 100 } } })),
    [],
    (frame) => frame.type === 'notification.created' || frame.type === 'notifications.read',
  );
  const count = unread.data?.items.length ?? 0;
  return (
    <NavLink to="/notifications" aria-label={`Notifications, ${count} unread`}>
      Notifications{' '}
      {count > 0 && (
        <span className="count" data-testid="unread-count">
          {count >= 100 ? '99+' : count}
        </span>
      )}
    </NavLink>
  );
}

/** The header's search box: opens the search page for the words typed. */
function HeaderSearch() {
  const navigate = useNavigate();
  const [words, setWords] = useState('');
  return (
    <search>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (words.trim().length >= 2) navigate(`/search?${new URLSearchParams({ q: words.trim() })}`);
        }}
      >
        <input
          type="search"
          className="header-search-words"
          aria-label="Search cases and alerts"
          placeholder="Search"
          value={words}
          onChange={(event) => setWords(event.target.value)}
        />
      </form>
    </search>
  );
}

/** Settings, for an administrator: the API decides who may use each page, this only spares others a link to a refusal. */
function SettingsLink() {
  return useMe().role === 'admin' ? <NavLink to="/settings/connections">Settings</NavLink> : null;
}

/** The shortcuts of every page: `g` then a letter goes to a main page. */
function GlobalShortcuts() {
  const navigate = useNavigate();
  useShortcut('g a', 'Go to the alert inbox', () => navigate('/alerts'));
  useShortcut('g c', 'Go to the cases', () => navigate('/cases'));
  useShortcut('g r', 'Go to the runs', () => navigate('/runs'));
  useShortcut('g e', 'Go to containment', () => navigate('/effects'));
  useShortcut('g p', 'Go to the approvals', () => navigate('/approvals'));
  return null;
}

function LiveIndicator() {
  const status = useLiveStatus();
  const words = { open: 'Live', connecting: 'Connecting…', closed: 'Offline: reconnecting' }[status];
  return (
    <span className={`live live-${status}`} role="status" data-testid="live-status">
      {words}
    </span>
  );
}

function Who() {
  const me = useMe();
  return <span className="who">{`${me.full_name ?? me.email ?? me.id}${me.role ? ` (${me.role})` : ''}`}</span>;
}

/**
 * The page the URL names. Memoized: matching the URL against every route is the costliest
 * part of rendering the frame, and the frame renders again whenever the live status or the
 * unread count changes, while the page changes only with the URL.
 */
const Pages = memo(function Pages() {
  return (
    <Routes>
      {consolePaths.map((path) => (
        <Route key={path} path={path} element={pages[path]} />
      ))}
      <Route path="*" element={<p>There is no such page in the console.</p>} />
    </Routes>
  );
});

function Frame() {
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <strong className="brand">svc</strong>
        <nav aria-label="Main">
          <NavLink to="/alerts">Alerts</NavLink>
          <NavLink to="/cases">Cases</NavLink>
          <NavLink to="/runbooks">Runbooks</NavLink>
          <NavLink to="/runs" end>
            Runs
          </NavLink>
          <NavLink to="/effects">Containment</NavLink>
          <NavLink to="/approvals">Approvals</NavLink>
          <NavLink to="/metrics">Metrics</NavLink>
          <UnreadCount />
          <SettingsLink />
        </nav>
        <HeaderSearch />
        <LiveIndicator />
        <ThemePicker />
        <Who />
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="the page" />}>
          <Pages />
        </Suspense>
      </main>
    </>
  );
}

export function App() {
  return (
    <BrowserRouter basename={publicPrefix}>
      <ThemeProvider>
        <LiveProvider>
          <MeProvider>
            <ShortcutProvider>
              <GlobalShortcuts />
              <Frame />
            </ShortcutProvider>
          </MeProvider>
        </LiveProvider>
      </ThemeProvider>
    </BrowserRouter>
  );
}
