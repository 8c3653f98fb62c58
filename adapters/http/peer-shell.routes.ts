/**
 * The suite shell's peer endpoints (SPEC.md "Peer endpoints"; shapes in
 * docs/suite-contracts.md "Suite shell peer endpoints"), read by the identity service with
 * its service token and scope `svc:peer:status:read` only (SPEC.md "Authentication"): any
 * other caller, a realm admin's assertion included, is 403. Every answer is `no-store`;
 * bad input is 400 `peer_bad_request` (an unknown or repeated query parameter too).
 *
 * - `GET /peer/v1/nav`: `{product, sections, settings, actions}` (peer-nav.ts).
 * - `GET /peer/v1/home`: `{product, items, strip, setup}` (peer-home.ts).
 * - `GET /peer/v1/notifications?user=<subject>`: `{product, unread, items}`, at most 50,
 *   newest first, items as `GET /notifications`; an unknown or disabled subject has none.
 * - `POST /peer/v1/notifications/read {user, ids: [1..100]} | {user, all: true}`: marks
 *   that user's items read (ids of anyone else's are ignored); `{product, unread}`.
 * - `GET /peer/v1/search?user=<subject>&q=<query>[&team=<id>]`: `{product, items}` (peer-search.ts).
 */
import { Hono } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { countUnread, listNotifications, markNotificationsRead } from '../../projections/notifications/notifications.queries.ts';
import { milestoneStamps, openCasesPerTeam, openOwnedCases, runsStartedPerTeam } from '../../projections/peer/home.queries.ts';
import { activeUserBySubject } from '../../projections/peer/peer-user.queries.ts';
import { PEER_STATUS_SCOPE, peerBadRequest, peerJsonBody } from './account-section.ts';
import { requirePeerService } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { notificationSchema, notificationView } from './notifications.routes.ts';
import { jsonAnswer } from './openapi.ts';
import { HOME_ITEMS_PER_OWNER, HOME_STRIP_WINDOW_MS, homeDocumentSchema, homeItems, homeStrip, setupSteps } from './peer-home.ts';
import { navDocument, navDocumentSchema } from './peer-nav.ts';
import { peerQuery, peerSubject } from './peer-query.ts';
import { peerSearch, searchDocumentSchema, searchQuerySchema } from './peer-search.ts';
import { PRODUCT } from './peer.routes.ts';
import { uuid } from '../shared/shapes.ts';

/** SPEC.md "Limits": notifications returned per peer read. */
export const PEER_NOTIFICATIONS_LIMIT = 50;
/** SPEC.md "Limits": ids in a peer mark-read. */
const PEER_MARK_READ_MAX_IDS = 100;

const notificationsDocumentSchema = v.strictObject({ product: v.string(), unread: v.number(), items: v.array(notificationSchema) });
const unreadDocumentSchema = v.strictObject({ product: v.string(), unread: v.number() });

const markReadBody = v.union([
  v.strictObject({ user: peerSubject, ids: v.pipe(v.array(uuid), v.minLength(1), v.maxLength(PEER_MARK_READ_MAX_IDS)) }),
  v.strictObject({ user: peerSubject, all: v.literal(true) }),
]);

const queryParameter = (name: string, description: string, required = true) => ({
  name,
  in: 'query' as const,
  required,
  description,
  schema: { type: 'string' as const },
});
const userParameter = queryParameter('user', "the person's identity subject");

/** What the suite shell routes read of the service (adapters/http/deps.ts). */
export type PeerShellRouteDeps = Pick<HttpDeps, 'caseConfig' | 'db' | 'mergedCaseStatuses' | 'now' | 'permissions' | 'publicPrefix' | 'runbooks'>;

/** The suite shell's `/peer/v1` routes; mount behind `authenticate()`. */
export function peerShellRoutes(deps: PeerShellRouteDeps) {
  const { db } = deps;
  const prefix = deps.publicPrefix;
  const statusToken = requirePeerService(PEER_STATUS_SCOPE);
  const search = {
    db,
    permissions: deps.permissions,
    prefix,
    keyPrefix: deps.caseConfig.keyPrefix,
    mergedStatuses: deps.mergedCaseStatuses,
    runbookSlugs: () => deps.runbooks.list().map((r) => r.id),
  };
  return new Hono<AppEnv>()
    .get(
      '/peer/v1/nav',
      describeRoute({
        summary: "This product's navigation in the suite shell, each entry with the least role that opens it",
        tags: ['peer'],
        responses: { 200: jsonAnswer(navDocumentSchema, 'Sections, settings and the header search action') },
      }),
      statusToken,
      (c) => {
        peerQuery(c, v.object({}));
        c.header('cache-control', 'no-store');
        return c.json(navDocument(PRODUCT, deps.permissions, prefix));
      },
    )
    .get(
      '/peer/v1/home',
      describeRoute({
        summary: "This product's home section: open owned cases, the per-team strip and the setup steps",
        tags: ['peer'],
        responses: { 200: jsonAnswer(homeDocumentSchema, 'Items, strip and setup') },
      }),
      statusToken,
      async (c) => {
        peerQuery(c, v.object({}));
        const closed = [...deps.caseConfig.closedStatuses];
        const since = new Date(deps.now().getTime() - HOME_STRIP_WINDOW_MS);
        const [owned, openCases, runsStarted, stamps] = await Promise.all([
          openOwnedCases(db, closed, HOME_ITEMS_PER_OWNER),
          openCasesPerTeam(db, closed),
          runsStartedPerTeam(db, since),
          milestoneStamps(db),
        ]);
        c.header('cache-control', 'no-store');
        return c.json({
          product: PRODUCT,
          items: homeItems(owned, deps.permissions, prefix),
          strip: homeStrip(openCases, runsStarted),
          setup: setupSteps(stamps, prefix),
        } satisfies v.InferOutput<typeof homeDocumentSchema>);
      },
    )
    .get(
      '/peer/v1/notifications',
      describeRoute({
        summary: "A person's in-app notifications, newest first, at most 50",
        tags: ['peer'],
        parameters: [userParameter],
        responses: { 200: jsonAnswer(notificationsDocumentSchema, 'The unread count and the newest notifications; none for an unknown or disabled subject') },
      }),
      statusToken,
      async (c) => {
        const { user } = peerQuery(c, v.object({ user: peerSubject }));
        const person = await activeUserBySubject(db, user);
        const [rows, unread] = person
          ? await Promise.all([listNotifications(db, person.id, { unreadOnly: false, limit: PEER_NOTIFICATIONS_LIMIT }), countUnread(db, person.id)])
          : [[], 0];
        c.header('cache-control', 'no-store');
        return c.json({ product: PRODUCT, unread, items: rows.map((r) => notificationView(r, prefix)) } satisfies v.InferOutput<
          typeof notificationsDocumentSchema
        >);
      },
    )
    .post(
      '/peer/v1/notifications/read',
      describeRoute({
        summary: "Mark a person's notifications read: the ids given (1 to 100; others' ids are ignored) or all",
        tags: ['peer'],
        requestBody: { required: true, content: { 'application/json': { schema: resolver(markReadBody) } } },
        responses: { 200: jsonAnswer(unreadDocumentSchema, 'How many of the person’s notifications are still unread') },
      }),
      statusToken,
      async (c) => {
        const body = await peerJsonBody(c.req);
        const parsed = v.safeParse(markReadBody, body);
        if (!parsed.success) throw peerBadRequest(`body must be {user, ids: [1 to ${PEER_MARK_READ_MAX_IDS} notification ids]} or {user, all: true}`);
        const person = await activeUserBySubject(db, parsed.output.user);
        let unread = 0;
        if (person) {
          await markNotificationsRead(db, person.id, 'ids' in parsed.output ? parsed.output.ids : null, deps.now());
          unread = await countUnread(db, person.id);
        }
        c.header('cache-control', 'no-store');
        return c.json({ product: PRODUCT, unread } satisfies v.InferOutput<typeof unreadDocumentSchema>);
      },
    )
    .get(
      '/peer/v1/search',
      describeRoute({
        summary: 'Header search: cases the person sees and runbooks, best match first, at most 10',
        tags: ['peer'],
        parameters: [
          userParameter,
          queryParameter('q', 'the query, 2 to 100 characters after trimming'),
          queryParameter('team', "a team id: only that team's cases, when the person reads there", false),
        ],
        responses: { 200: jsonAnswer(searchDocumentSchema, 'The matches; none for an unknown or disabled subject') },
      }),
      statusToken,
      async (c) => {
        const items = await peerSearch(search, peerQuery(c, searchQuerySchema));
        c.header('cache-control', 'no-store');
        return c.json({ product: PRODUCT, items } satisfies v.InferOutput<typeof searchDocumentSchema>);
      },
    );
}
