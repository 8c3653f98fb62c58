/** One end of a diff between saved versions (a runbook's, a custom action's): a select of the versions, newest first. */
export function VersionChoice({
  label,
  value,
  versions,
  onChange,
}: {
  label: string;
  value: number;
  versions: readonly { version: number; saved_at: string }[];
  onChange: (version: number) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(Number(event.target.value))}>
        {versions.map((version) => (
          <option key={`${version.version}:${version.saved_at}`} value={version.version}>{`version ${version.version}`}</option>
        ))}
      </select>
    </label>
  );
}
