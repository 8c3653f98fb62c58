export function NotificationsPage() {
  return <h1>NotificationsPage</h1>;
}
