export function AlertsPage() {
  return <h1>AlertsPage</h1>;
}
