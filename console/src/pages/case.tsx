export function CasePage() {
  return <h1>CasePage</h1>;
}
