export function RunPage() {
  return <h1>RunPage</h1>;
}
