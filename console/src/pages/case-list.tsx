export function CaseListPage() {
  return <h1>CaseListPage</h1>;
}
