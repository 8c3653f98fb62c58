/**
 * External ticket links (SPEC.md "Case sub-resources": `GET /cases/<case_id>/tickets`,
 * `GET /tickets/<link_id>`), scoped by the case's team and privacy: a link of a case the
 * caller may not see reads like an absent one (404 `ticket_link_not_found`). Each link
 * carries `mirror: {pending, failed, last_error}`, its outbound mirroring (ticket_outbox).
 */
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import type { CaseTicketsTable } from '../../projections/database.ts';
import { caseTicketLinks, findTicketLink, mirrorStates, type MirrorState } from '../../projections/tickets/tickets.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { caseRouteGuards } from './case-access.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { idParam, iso, uuid } from '../shared/shapes.ts';
import { validate } from './validation.ts';

const NOTHING_QUEUED: MirrorState = { pending: 0, failed: 0, last_error: null };

/** An external ticket link (SPEC.md "Case sub-resources") with its outbound mirroring state. */
const ticketLinkSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    case_id: v.string(),
    provider: v.string(),
    connection: v.string(),
    ticket_id: v.string(),
    remote_id: v.string(),
    url: v.nullable(v.string()),
    remote_status: v.nullable(v.string()),
    last_polled_at: v.nullable(v.string()),
    last_poll_error: v.nullable(v.string()),
    mirror: v.strictObject({ pending: v.number(), failed: v.number(), last_error: v.nullable(v.string()) }),
    created_at: v.string(),
  }),
  v.metadata({ ref: 'TicketLink' }),
);

/** A link as the API shows it, with its outbound mirroring state. */
const linkView = (l: Selectable<CaseTicketsTable>, mirror: MirrorState = NOTHING_QUEUED): v.InferOutput<typeof ticketLinkSchema> => ({
  id: l.link_id,
  case_id: l.case_id,
  provider: l.provider,
  connection: l.connection,
  ticket_id: l.remote_key,
  remote_id: l.remote_id,
  url: l.url,
  remote_status: l.remote_status,
  last_polled_at: iso(l.last_polled_at),
  last_poll_error: l.last_poll_error,
  mirror,
  created_at: iso(l.created_at),
});

/** What the ticket routes read of the service (adapters/http/deps.ts). */
export type TicketRouteDeps = Pick<HttpDeps, 'db' | 'permissions'>;

/** `GET /cases/<id>/tickets` (404 `case_not_found` for an invisible case) and `GET /tickets/<link_id>` (404 `ticket_link_not_found`). */
export function ticketRoutes(deps: TicketRouteDeps) {
  const { access, read } = caseRouteGuards(deps.db, deps.permissions);
  return new Hono<AppEnv>()
    .get(
      '/cases/:id/tickets',
      describeRoute({
        summary: 'External ticket links of a case, oldest first',
        tags: ['cases'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(ticketLinkSchema) }), 'The links, oldest first') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        const links = await caseTicketLinks(deps.db, id);
        const mirror = await mirrorStates(
          deps.db,
          links.map((l) => l.link_id),
        );
        return c.json({ items: links.map((l) => linkView(l, mirror.get(l.link_id))) });
      },
    )
    .get(
      '/tickets/:link_id',
      describeRoute({ summary: 'One external ticket link', tags: ['cases'], responses: { 200: jsonAnswer(ticketLinkSchema, 'The link') } }),
      read,
      validate('param', v.object({ link_id: uuid })),
      async (c) => {
        const { link_id: linkId } = c.req.valid('param');
        const link = await findTicketLink(deps.db, linkId, caseScopeOf(c.get('principal'), deps.permissions));
        if (!link) throw new DomainError('ticket_link_not_found', 404, 'ticket link not found', { link_id: linkId });
        return c.json(linkView(link, (await mirrorStates(deps.db, [link.link_id])).get(link.link_id)));
      },
    );
}
