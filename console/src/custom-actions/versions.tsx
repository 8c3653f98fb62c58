/**
 * A custom action's saved versions (`GET /custom-actions/<id>/versions`, newest first: who
 * saved each, from where, its state and whether its danger was acknowledged) and the
 * difference between any two of their specs, written as the editor writes them. By
 * default the newest against the one before it.
 */
import { useState } from 'react';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useResource } from '../resource.ts';
import { TextDiff } from '../text-diff.tsx';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { VersionChoice } from '../version-choice.tsx';
import { specText } from './spec-text.ts';

type Version = paths['/custom-actions/{id}/versions']['get']['responses'][200]['content']['application/json']['items'][number];

const specOf = (versions: readonly Version[], version: number): string => specText(versions.find((item) => item.version === version)?.spec ?? {});

/** `version` is the action's current one: the list is read again whenever it changes. */
export function CustomActionVersions({ id, version }: { id: string; version: number }) {
  const list = useResource(async () => answer(await client.GET('/custom-actions/{id}/versions', { params: { path: { id } } })), [id, version]);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Loading what="the versions" />}
      {list.data && <VersionTable key={list.data.items[0]?.version} versions={list.data.items} />}
    </section>
  );
}

function VersionTable({ versions }: { versions: readonly Version[] }) {
  const [after, setAfter] = useState(versions[0]?.version ?? 1);
  const [before, setBefore] = useState(versions[1]?.version ?? after);
  return (
    <>
      <table aria-label="Saved versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Saved</th>
            <th scope="col">By</th>
            <th scope="col">From</th>
            <th scope="col">State</th>
            <th scope="col">Danger acknowledged</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={version.version}>
              <td>{version.version}</td>
              <td>
                <Ago at={version.saved_at} />
              </td>
              <td>{version.saved_by ?? 'unknown'}</td>
              <td>{version.source === 'pack' ? 'integration pack' : 'API'}</td>
              <td>{version.enabled ? 'enabled' : 'disabled'}</td>
              <td>{version.acknowledged_danger ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 1 && (
        <>
          <div className="row">
            <VersionChoice label="From" value={before} versions={versions} onChange={setBefore} />
            <VersionChoice label="To" value={after} versions={versions} onChange={setAfter} />
          </div>
          <TextDiff before={specOf(versions, before)} after={specOf(versions, after)} label={`Changes from version ${before} to version ${after}`} />
        </>
      )}
    </>
  );
}
