/**
 * A runbook's saved versions (`versions` of `GET /runbooks/<slug>`, newest first) and the
 * difference between any two of them, each read from `GET /runbooks/<slug>/versions/<n>`.
 * By default the newest against the one before it.
 */
import { useState } from 'react';
import { answer, client } from '../api.ts';
import type { Runbook } from '../api-shapes.ts';
import { useResource } from '../resource.ts';
import { TextDiff } from '../text-diff.tsx';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { VersionChoice } from '../version-choice.tsx';

const versionText = async (slug: string, version: number): Promise<string> =>
  answer(await client.GET('/runbooks/{slug}/versions/{version}', { params: { path: { slug, version: String(version) } } })).yaml_text;

export function VersionHistory({ runbook }: { runbook: Runbook }) {
  const versions = runbook.versions;
  const [after, setAfter] = useState(versions[0]?.version ?? runbook.version);
  const [before, setBefore] = useState(versions[1]?.version ?? after);
  const texts = useResource(async () => Promise.all([versionText(runbook.id, before), versionText(runbook.id, after)]), [runbook.id, before, after]);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Saved</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={`${version.version}:${version.saved_at}`}>
              <td>{version.version}</td>
              <td>
                <Ago at={version.saved_at} />
              </td>
              <td>{version.saved_by ?? 'unknown'}</td>
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
          <ErrorNote error={texts.error} />
          {!texts.data && texts.loading && <Loading what="the two versions" />}
          {texts.data && <TextDiff before={texts.data[0]} after={texts.data[1]} label={`Changes from version ${before} to version ${after}`} />}
        </>
      )}
    </section>
  );
}
