/**
 * The case page (route `/cases/<id>`, the `href` of every notification about a case):
 * header with the acknowledgement clock, who else is viewing, timeline, comments with
 * mentions, AI triage, runs, and the side panels (merge, custom fields, containment effects, tasks,
 * observables, evidence, attachments, linked alerts, tickets). Everything is read through the API and re-read on the case's live
 * frames.
 */
import { useParams } from 'react-router';
import { answer, client } from '../api.ts';
import { AiTriagePanel } from '../case/ai-triage.tsx';
import { AttachmentsPanel } from '../case/attachments.tsx';
import { CaseHeader } from '../case/header.tsx';
import { CustomFieldsPanel } from '../case/custom-fields.tsx';
import { MergePanel } from '../case/merge.tsx';
import { Comments } from '../case/comments.tsx';
import { EvidencePanel } from '../case/evidence.tsx';
import { LinkedAlertsPanel } from '../case/linked-alerts.tsx';
import { ObservablesPanel } from '../case/observables.tsx';
import { Presence } from '../case/presence.tsx';
import { CaseRuns } from '../case/runs.tsx';
import { TasksPanel } from '../case/tasks.tsx';
import { TicketsPanel } from '../case/tickets.tsx';
import { Timeline } from '../case/timeline.tsx';
import { aboutCase } from '../case/types.ts';
import { EffectsPanel } from '../effects/effect-list.tsx';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { ErrorNote, Loading } from '../ui.tsx';

export function CasePage() {
  const { id = '' } = useParams();
  const me = useMe();
  const kase = useResource(
    async () => ({ value: answer(await client.GET('/cases/{id}', { params: { path: { id } } })), readAt: Date.now() }),
    [id],
    aboutCase(id),
  );
  // The default role matrix (CONTRACTS.md section 2): viewers read only. The API decides
  // either way; this only spares a viewer buttons that would answer 403.
  const canEdit = me.role !== 'viewer';
  if (kase.error && !kase.data) return <ErrorNote error={kase.error} />;
  if (!kase.data) return <Loading what="the case" />;
  const { value, readAt } = kase.data;
  return (
    <>
      <CaseHeader value={value} readAt={readAt} canEdit={canEdit} onChanged={kase.reload} />
      <Presence caseId={value.id} />
      <div className="grid">
        <div>
          <Comments caseId={value.id} canEdit={canEdit} />
          <TasksPanel caseId={value.id} canEdit={canEdit} />
          <Timeline caseId={value.id} />
        </div>
        <div>
          <MergePanel value={value} canEdit={canEdit} onChanged={kase.reload} />
          <CustomFieldsPanel value={value} canEdit={canEdit} onChanged={kase.reload} />
          <AiTriagePanel caseId={value.id} caseKey={value.key ?? null} canEdit={canEdit} />
          <CaseRuns caseId={value.id} canRun={canEdit} />
          <EffectsPanel of={{ case_id: value.id }} />
          <ObservablesPanel caseId={value.id} canEdit={canEdit} />
          <LinkedAlertsPanel caseId={value.id} canEdit={canEdit} />
          <EvidencePanel caseId={value.id} canEdit={canEdit} />
          <AttachmentsPanel caseId={value.id} canEdit={canEdit} />
          <TicketsPanel caseId={value.id} />
        </div>
      </div>
    </>
  );
}
