/**
 * The caller's in-app notifications (route `/notifications`; `GET /notifications`,
 * `POST /notifications/read`): mentions, task assignments and task comments, newest
 * first, each linking where its `href` points. Live on `notification.created`.
 */
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import { publicPrefix } from '../config.ts';
import { consoleRoute } from '../format.ts';
import { useLive } from '../live.tsx';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';

export function NotificationsPage() {
  const inbox = useResource(
    async () => answer(await client.GET('/notifications', { params: { query: { limit: 100 } } })),
    [],
    (frame) => frame.type === 'notification.created' || frame.type === 'notifications.read',
  );
  const live = useLive();
  const action = useAction();
  // The server sends no frame for a read: the header's unread count learns it from this tab.
  const markRead = (ids?: string[]) =>
    action.run(
      async () => answer(await client.POST('/notifications/read', { body: ids ? { ids } : {} })),
      () => live.emit({ type: 'notifications.read' }),
    );
  const unread = inbox.data?.items.filter((item) => !item.read) ?? [];
  return (
    <>
      <h1>Notifications</h1>
      <ErrorNote error={inbox.error ?? action.error} />
      {!inbox.data && !inbox.error && <Loading what="notifications" />}
      {unread.length > 0 && (
        <button type="button" onClick={() => markRead()}>
          Mark all read
        </button>
      )}
      {inbox.data?.items.length === 0 && <p className="muted">No notifications.</p>}
      <ul className="plain" data-testid="notifications">
        {inbox.data?.items.map((item) => {
          const route = consoleRoute(item.href, publicPrefix);
          return (
            <li key={item.id} className={item.read ? 'muted' : ''} data-testid="notification">
              {!item.read && <strong>New: </strong>}
              {route ? (
                <Link to={route} onClick={() => !item.read && markRead([item.id])}>
                  {item.title}
                </Link>
              ) : (
                item.title
              )}{' '}
              <span className="muted">({item.kind.replace(/_/g, ' ')})</span> <Ago at={item.at} />
              {!item.read && (
                <button type="button" onClick={() => markRead([item.id])}>
                  Mark read
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
