/** A YAML text's problems as the server named them, each with its line (yaml-loc.ts `placed`), for the editors' lists. */
import type { PlacedProblem } from './yaml-loc.ts';

export function ProblemList({ problems }: { problems: readonly PlacedProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="problems">
      {problems.map((problem) => (
        <li key={`${problem.loc.join('.')}:${problem.msg}`} className="error">
          {`Line ${problem.line}: ${problem.loc.length > 0 ? `${problem.loc.join('.')}: ` : ''}${problem.msg}`}
        </li>
      ))}
    </ul>
  );
}
