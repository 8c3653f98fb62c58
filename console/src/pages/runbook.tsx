export function RunbookPage() {
  return <h1>RunbookPage</h1>;
}
