export function RunbookListPage() {
  return <h1>RunbookListPage</h1>;
}
