/**
 * The tasks of a case (`GET /cases/<id>/tasks`), by position: status, assignee and due
 * date, an overdue task said in words. With `canEdit` the panel adds a task
 * (`POST /cases/<id>/tasks`) and changes one (`PATCH /cases/<id>/tasks/<task_id>`), the
 * assignee picked from the people of the case's team (people.ts). Each task's comments open below it
 * (`GET, POST /cases/<id>/tasks/<task_id>/comments`).
 */
import { type FormEvent, useId, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Person, Task, TaskChange, TaskStatus } from '../api-shapes.ts';
import { exactTime } from '../format.ts';
import { useResource } from '../resource.ts';
import { Ago, Badge, ErrorNote, Loading, useNow } from '../ui.tsx';
import { useAssignablePeople } from './people.ts';
import { aboutCase } from './types.ts';

/** The task statuses the API accepts (POST and PATCH `status`). */
const statuses: readonly TaskStatus[] = ['open', 'in_progress', 'done'];
const isTaskStatus = (value: string): value is TaskStatus => statuses.some((status) => status === value);

const pad = (n: number) => String(n).padStart(2, '0');
/** The local day of `at` as `yyyy-mm-dd`, a date input's value. */
const dayOf = (at: string): string => {
  const d = new Date(at);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
};
/** The end of local day `day` (`yyyy-mm-dd`) as an RFC 3339 time; null (no due date) for an empty input. */
const endOfDay = (day: string): string | null => (day === '' ? null : new Date(`${day}T23:59:59`).toISOString());

/** The `<option>`s of an assignee picker: nobody, the assignable people, and the current assignee when no longer among them. */
function PeopleOptions({ people, current }: { people: Person[]; current: Pick<Task, 'assignee_id' | 'assignee_email'> | null }) {
  const stale = current?.assignee_id && !people.some((person) => person.id === current.assignee_id) ? current : null;
  return (
    <>
      <option value="">Unassigned</option>
      {stale?.assignee_id && <option value={stale.assignee_id}>{stale.assignee_email ?? stale.assignee_id}</option>}
      {people.map((person) => (
        <option key={person.id} value={person.id}>
          {person.name ? `${person.name} (${person.email})` : person.email}
        </option>
      ))}
    </>
  );
}

function TaskComments({ caseId, taskId, canEdit }: { caseId: string; taskId: string; canEdit: boolean }) {
  const comments = useResource(
    async () => answer(await client.GET('/cases/{id}/tasks/{task_id}/comments', { params: { path: { id: caseId, task_id: taskId } } })),
    [caseId, taskId],
    aboutCase(caseId),
  );
  const [text, setText] = useState('');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    action.run(
      async () => answer(await client.POST('/cases/{id}/tasks/{task_id}/comments', { params: { path: { id: caseId, task_id: taskId } }, body: { text } })),
      () => {
        setText('');
        comments.reload();
      },
    );
  };
  return (
    <>
      <ErrorNote error={comments.error} />
      {!comments.data && !comments.error && <Loading what="comments" />}
      {comments.data?.items.length === 0 && <p className="muted">No comments on this task.</p>}
      <ul className="plain">
        {comments.data?.items.map((comment) => (
          <li key={comment.id}>
            <span className="muted">
              {comment.author_email ?? 'Someone'} · <Ago at={comment.created_at} />
            </span>
            <p className="task-comment">{comment.text}</p>
          </li>
        ))}
      </ul>
      {canEdit && (
        <form onSubmit={submit} className="stack">
          <label>
            Add a comment
            <textarea value={text} onChange={(event) => setText(event.target.value)} maxLength={4000} rows={2} required />
          </label>
          <ErrorNote error={action.error} />
          <button type="submit" disabled={action.busy || text.trim() === ''}>
            Comment
          </button>
        </form>
      )}
    </>
  );
}

/** The comments of a task, read only while they are open. */
function CommentsToggle({ caseId, taskId, canEdit }: { caseId: string; taskId: string; canEdit: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Comments</summary>
      {open && <TaskComments caseId={caseId} taskId={taskId} canEdit={canEdit} />}
    </details>
  );
}

/** Status, assignee and due date of a task as controls; each change is sent at once (a complete or emptied due date when its field is left). */
function TaskControls({ caseId, task, people, onChanged }: { caseId: string; task: Task; people: Person[]; onChanged: () => void }) {
  const action = useAction();
  const change = (body: TaskChange) =>
    action.run(async () => answer(await client.PATCH('/cases/{id}/tasks/{task_id}', { params: { path: { id: caseId, task_id: task.id } }, body })), onChanged);
  const due = task.due_at ? dayOf(task.due_at) : '';
  const of = <span className="visually-hidden"> of {task.title}</span>;
  return (
    <>
      <div className="row">
        <label>
          Status{of}
          <select
            value={task.status}
            disabled={action.busy}
            onChange={(event) => {
              const status = event.target.value;
              if (isTaskStatus(status)) change({ status });
            }}
          >
            {statuses.map((status) => (
              <option key={status} value={status}>
                {status.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Assignee{of}
          <select value={task.assignee_id ?? ''} disabled={action.busy} onChange={(event) => change({ assignee_id: event.target.value || null })}>
            <PeopleOptions people={people} current={task} />
          </select>
        </label>
        <label>
          Due{of}
          <input
            key={due}
            type="date"
            defaultValue={due}
            disabled={action.busy}
            onBlur={(event) => !event.target.validity.badInput && event.target.value !== due && change({ due_at: endOfDay(event.target.value) })}
          />
        </label>
      </div>
      <ErrorNote error={action.error} />
    </>
  );
}

function TaskItem({ caseId, task, people, canEdit, onChanged }: { caseId: string; task: Task; people: Person[]; canEdit: boolean; onChanged: () => void }) {
  const now = useNow(60_000);
  const overdue = task.status !== 'done' && task.due_at !== null && new Date(task.due_at).getTime() < now.getTime();
  return (
    <li className={overdue ? 'task overdue' : 'task'}>
      <div className="row">
        <strong>{task.title}</strong>
        <Badge kind="status" value={task.status} />
        {overdue && <strong className="overdue-note">Overdue</strong>}
      </div>
      {canEdit ? (
        <TaskControls caseId={caseId} task={task} people={people} onChanged={onChanged} />
      ) : (
        <p className="muted">
          {task.assignee_email ? `Assigned to ${task.assignee_email}` : 'Unassigned'} ·{' '}
          {task.due_at ? `due ${exactTime(task.due_at).slice(0, 10)}` : 'no due date'}
        </p>
      )}
      <CommentsToggle caseId={caseId} taskId={task.id} canEdit={canEdit} />
    </li>
  );
}

function AddTask({ caseId, people, onAdded }: { caseId: string; people: Person[]; onAdded: () => void }) {
  const [title, setTitle] = useState('');
  const [assignee, setAssignee] = useState('');
  const [due, setDue] = useState('');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    action.run(
      async () =>
        answer(
          await client.POST('/cases/{id}/tasks', {
            params: { path: { id: caseId } },
            body: { title: title.trim(), assignee_id: assignee || null, due_at: endOfDay(due) },
          }),
        ),
      () => {
        setTitle('');
        setAssignee('');
        setDue('');
        onAdded();
      },
    );
  };
  return (
    <form onSubmit={submit} className="stack">
      <h3>Add a task</h3>
      <label>
        Title
        <input value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} required />
      </label>
      <div className="row">
        <label>
          Assignee
          <select value={assignee} onChange={(event) => setAssignee(event.target.value)}>
            <PeopleOptions people={people} current={null} />
          </select>
        </label>
        <label>
          Due
          <input type="date" value={due} onChange={(event) => setDue(event.target.value)} />
        </label>
      </div>
      <ErrorNote error={action.error} />
      <button type="submit" className="primary" disabled={action.busy || title.trim() === ''}>
        Add task
      </button>
    </form>
  );
}

/** The case's tasks; `canEdit` (the caller may manage cases) shows the controls that change them. */
export function TasksPanel({ caseId, canEdit }: { caseId: string; canEdit: boolean }) {
  const headingId = useId();
  const tasks = useResource(async () => answer(await client.GET('/cases/{id}/tasks', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  const people = useAssignablePeople(caseId);
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Tasks</h2>
      <ErrorNote error={tasks.error} />
      <ErrorNote error={people.error} />
      {!tasks.data && !tasks.error && <Loading what="tasks" />}
      {tasks.data?.items.length === 0 && <p className="muted">No tasks yet.</p>}
      <ul className="plain">
        {tasks.data?.items.map((task) => (
          <TaskItem key={task.id} caseId={caseId} task={task} people={people.data ?? []} canEdit={canEdit} onChanged={tasks.reload} />
        ))}
      </ul>
      {canEdit && <AddTask caseId={caseId} people={people.data ?? []} onAdded={tasks.reload} />}
    </section>
  );
}
