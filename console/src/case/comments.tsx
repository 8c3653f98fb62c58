/**
 * Case comments (`GET`/`POST /cases/<id>/comments`) with `@` mentions (docs/configuration.md
 * "Comments, mentions, notifications"): typing `@` offers the people who may be assigned the
 * case (`GET /cases/assignable-users`), arrow keys and Enter pick one, and `@<email>` goes
 * into the text, which the server resolves. After posting, the answer's `mentions` says who
 * was notified and who was not, and why.
 */
import { type KeyboardEvent, useRef, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Person } from '../api-shapes.ts';
import { mentionOutcome, mentionQueryAt } from '../format.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { personLabel, useAssignablePeople } from './people.ts';
import { aboutCase } from './types.ts';

function MentionBox({ caseId, value, onChange, disabled }: { caseId: string; value: string; onChange: (text: string) => void; disabled: boolean }) {
  const people = useAssignablePeople(caseId);
  const area = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const query = mentionQueryAt(value, caret);
  const matches =
    query === null
      ? []
      : (people.data ?? []).filter((person) => `${person.email} ${person.name ?? ''}`.toLowerCase().includes(query.toLowerCase())).slice(0, 8);

  const pick = (person: Person) => {
    const start = value.slice(0, caret).lastIndexOf('@');
    const next = `${value.slice(0, start)}@${person.email} ${value.slice(caret)}`;
    onChange(next);
    const position = start + person.email.length + 2;
    setCaret(position);
    requestAnimationFrame(() => area.current?.setSelectionRange(position, position));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (matches.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => (index + (event.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      const person = matches[Math.min(active, matches.length - 1)];
      if (person) {
        event.preventDefault();
        pick(person);
      }
    }
  };

  return (
    <div className="mention-box">
      <label htmlFor="comment-text">Comment (type @ to mention someone)</label>
      <textarea
        id="comment-text"
        ref={area}
        rows={3}
        value={value}
        disabled={disabled}
        role="combobox"
        aria-expanded={matches.length > 0}
        aria-controls="mention-options"
        aria-autocomplete="list"
        aria-activedescendant={matches.length > 0 ? `mention-${Math.min(active, matches.length - 1)}` : undefined}
        onChange={(event) => {
          onChange(event.target.value);
          setCaret(event.target.selectionStart);
          setActive(0);
        }}
        onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
      />
      {matches.length > 0 && (
        <div id="mention-options" role="listbox" aria-label="People to mention" className="mention-options">
          {matches.map((person, index) => (
            <div
              key={person.id}
              id={`mention-${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              className={index === active ? 'active' : ''}
              onMouseDown={(event) => {
                event.preventDefault();
                pick(person);
              }}
            >
              {personLabel(person)}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

export function Comments({ caseId, canEdit }: { caseId: string; canEdit: boolean }) {
  const comments = useResource(async () => answer(await client.GET('/cases/{id}/comments', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  const [text, setText] = useState('');
  const action = useAction();
  const [outcome, setOutcome] = useState('');

  const post = () =>
    action.run(
      async () => answer(await client.POST('/cases/{id}/comments', { params: { path: { id: caseId } }, body: { text } })),
      (posted) => {
        setText('');
        setOutcome(mentionOutcome(posted.mentions));
        comments.reload();
      },
    );

  return (
    <section className="panel" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments</h2>
      <ErrorNote error={comments.error} />
      {!comments.data && !comments.error && <Loading what="comments" />}
      <ul className="plain" data-testid="comments">
        {comments.data?.items.map((comment) => (
          <li key={comment.id}>
            <strong>{comment.author_email ?? 'automation'}</strong> <Ago at={comment.created_at} />
            <div className="comment-text">{comment.text}</div>
          </li>
        ))}
      </ul>
      {canEdit && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (text.trim() !== '') post();
          }}
        >
          <MentionBox caseId={caseId} value={text} onChange={setText} disabled={action.busy} />
          <button type="submit" className="primary" disabled={action.busy || text.trim() === ''}>
            Post comment
          </button>
          <ErrorNote error={action.error} />
          {outcome && (
            <p className="muted" role="status">
              {outcome}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
