/**
 * The external tickets linked to a case (`GET /cases/<id>/tickets`, oldest first): the
 * ticket (a link out to the ticketing product), its last known remote status, when it was
 * last polled and any polling or mirroring trouble, in words. Links are made by the
 * ticketing actions of runbooks, so the panel only reads.
 */
import { useId } from 'react';
import { answer, client } from '../api.ts';
import type { TicketLink } from '../api-shapes.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

/** How the case's changes reach the ticket: waiting or failed updates, in words; nothing when all went out. */
function MirrorState({ mirror }: { mirror: TicketLink['mirror'] }) {
  if (mirror.pending === 0 && mirror.failed === 0) return null;
  return (
    <p className={mirror.failed > 0 ? 'error' : 'muted'}>
      {mirror.pending > 0 && `${mirror.pending} update${mirror.pending === 1 ? '' : 's'} waiting to be sent to the ticket. `}
      {mirror.failed > 0 && `${mirror.failed} update${mirror.failed === 1 ? '' : 's'} could not be sent${mirror.last_error ? `: ${mirror.last_error}` : '.'}`}
    </p>
  );
}

function TicketItem({ ticket }: { ticket: TicketLink }) {
  return (
    <li>
      <div className="row">
        {ticket.url ? (
          <a href={ticket.url} target="_blank" rel="noreferrer">
            {ticket.ticket_id}
          </a>
        ) : (
          <strong>{ticket.ticket_id}</strong>
        )}
        <span className="badge">{ticket.remote_status ?? 'status not read yet'}</span>
      </div>
      <span className="muted">
        {ticket.provider} via {ticket.connection}
        {ticket.last_polled_at && (
          <>
            {' '}
            · polled <Ago at={ticket.last_polled_at} />
          </>
        )}
      </span>
      {ticket.last_poll_error && <p className="error">{`The last poll failed: ${ticket.last_poll_error}`}</p>}
      <MirrorState mirror={ticket.mirror} />
    </li>
  );
}

/** The case's ticket links; read-only, so `canEdit` changes nothing here. */
export function TicketsPanel({ caseId }: { caseId: string }) {
  const headingId = useId();
  const tickets = useResource(async () => answer(await client.GET('/cases/{id}/tickets', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Tickets</h2>
      <ErrorNote error={tickets.error} />
      {!tickets.data && !tickets.error && <Loading what="tickets" />}
      {tickets.data?.items.length === 0 && <p className="muted">No external tickets.</p>}
      <ul className="plain">
        {tickets.data?.items.map((ticket) => (
          <TicketItem key={ticket.id} ticket={ticket} />
        ))}
      </ul>
    </section>
  );
}
