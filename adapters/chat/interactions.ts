/**
 * What a verified chat_a request asks for (SPEC.md "Webhook intake": `POST
 * /webhooks/chat-interactions`, slash commands and interactive approval callbacks).
 *
 * - A slash command's text links the sender's chat identity with a one-time code, or
 *   unlinks it; the answer is the ephemeral message the chat product shows the sender.
 * - A press of a gate button (notify-chat-a.ts) decides the gate as the person the
 *   presser's identity is linked to, through the same check as `POST /runs/<id>/approve`
 *   (gate-decision.ts). An unlinked presser decides nothing. The outcome goes back through
 *   the request's `response_url`, since the chat product ignores an interaction's body.
 *
 * A linked person acts with the grants of the last token identity gave them here (the
 * user row), so revoking a grant reaches chat decisions at their next sign-in; unlinking
 * or deactivating the user stops them at once (docs/configuration.md "Chat").
 */
import * as v from 'valibot';
import { uuid } from '../shared/shapes.ts';
import type { AuditAction } from '../../domain/audit/events.ts';
import { parseSlashCommand } from '../../domain/chat/slash-command.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { GATE_BUTTONS, type GateButtonValue } from '../actions/notify-chat-a.ts';
import type { Principal } from '../identity/principal.ts';
import type { ChatIdentity, ChatIdentityLinks, LinkedUser } from './identity-links.ts';

/** The message the chat product shows: ephemeral (only the sender sees it) unless it replaces the pressed message. */
export const chatReplySchema = v.strictObject({ response_type: v.literal('ephemeral'), text: v.string(), replace_original: v.optional(v.boolean()) });

export type ChatReply = v.InferOutput<typeof chatReplySchema>;

export type ChatInteractionDeps = {
  links: ChatIdentityLinks;
  /** The slash command's name as the chat app defines it (SVC_CHAT_COMMAND), for help texts. */
  command: string;
  audit: (action: AuditAction, user: Pick<LinkedUser, 'id' | 'email' | 'subject'>, detail: Record<string, unknown>) => Promise<void>;
  /** Decides a gate as `principal` (gate-decision.ts); throws DomainError on a refusal. */
  decide: (principal: Principal, decision: { runId: string; stepId: string; decision: 'approved' | 'denied'; note: string | null }) => Promise<void>;
};

/** Sends `reply` to an interaction's `response_url`, best effort (the route checks where it points). */
export type ChatResponder = (responseUrl: string, reply: ChatReply) => void;

const id = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

const slashForm = v.object({ team_id: id, user_id: id, user_name: v.optional(v.string()), text: v.optional(v.string(), '') });

const blockActions = v.object({
  type: v.literal('block_actions'),
  user: v.object({ id, username: v.optional(v.string()), name: v.optional(v.string()), team_id: v.optional(id) }),
  team: v.optional(v.nullable(v.object({ id }))),
  response_url: v.optional(v.string()),
  message: v.optional(v.object({ text: v.optional(v.string()) })),
  actions: v.pipe(v.array(v.object({ action_id: v.string(), value: v.optional(v.string()) })), v.minLength(1)),
});

const gateValue = v.object({ run_id: uuid, step_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/)) });

const ephemeral = (text: string): ChatReply => ({ response_type: 'ephemeral', text });

/** A linked person as the gate check sees them: their user row's identity and grants. */
function principalOf(user: LinkedUser): Principal {
  return {
    tokenUse: 'assertion',
    subject: user.subject,
    userId: user.id,
    email: user.email,
    name: user.name,
    grants: user.grants,
    scopes: null,
    workload: null,
  };
}

/** The text of a gate refusal the presser can act on; anything unexpected stays generic. */
function refusalText(error: unknown): string {
  if (!(error instanceof DomainError)) return 'The decision could not be recorded. Decide it in the console.';
  switch (error.code) {
    case 'run_not_found':
      return 'That run is not visible to your account.';
    case 'forbidden':
    case 'approval_role_required':
      return `Your account may not decide this gate: ${error.message}.`;
    case 'approval_expired':
      return 'This approval expired; it can no longer be decided.';
    case 'gate_not_open':
    case 'run_finished':
      return `This gate is not waiting for a decision (${error.message}).`;
    default:
      return `The decision was refused: ${error.message}.`;
  }
}

export function createChatInteractions(deps: ChatInteractionDeps) {
  const help = ephemeral(
    `Link this chat account to your svc account: ask for a link code in your account settings, then type \`${deps.command} link <code>\`. \`${deps.command} unlink\` removes the link.`,
  );
  return {
    /** The reply to a slash command (form fields as sent); never throws for a malformed form, which gets the help text. */
    async slashCommand(form: Record<string, string>): Promise<ChatReply> {
      const parsed = v.safeParse(slashForm, form);
      if (!parsed.success) return help;
      const identity: ChatIdentity = {
        provider: 'chat_a',
        workspaceId: parsed.output.team_id,
        chatUserId: parsed.output.user_id,
        chatUserName: parsed.output.user_name ?? null,
      };
      const command = parseSlashCommand(parsed.output.text);
      switch (command.kind) {
        case 'link': {
          const user = await deps.links.redeem(command.code, identity);
          if (!user) return ephemeral('That link code is unknown, already used or expired. Ask for a new one in your account settings.');
          await deps.audit('chat.identity_link', user, {
            provider: 'chat_a',
            workspace_id: identity.workspaceId,
            chat_user_id: identity.chatUserId,
            from: 'chat',
          });
          return ephemeral(`This chat account is now linked to ${user.email}. Approval buttons act as that account.`);
        }
        case 'unlink': {
          const user = await deps.links.unlinkIdentity(identity);
          if (!user) return ephemeral('This chat account was not linked.');
          await deps.audit('chat.identity_unlink', user, {
            provider: 'chat_a',
            workspace_id: identity.workspaceId,
            chat_user_id: identity.chatUserId,
            from: 'chat',
          });
          return ephemeral('This chat account is no longer linked.');
        }
        case 'bad_code':
          return ephemeral(`A link code has ten letters and digits, like ABCDE-12345: \`${deps.command} link <code>\`.`);
        case 'help':
          return help;
      }
    },

    /**
     * Acts on a `block_actions` payload: a gate button decides its gate as the linked person.
     * Other interactions are acknowledged and ignored. Returns what was decided, for tests and logs.
     */
    async blockActions(payload: unknown, respond: ChatResponder): Promise<'decided' | 'refused' | 'unlinked' | 'ignored'> {
      const parsed = v.safeParse(blockActions, payload);
      if (!parsed.success) return 'ignored';
      const { user, team, actions, response_url: responseUrl, message } = parsed.output;
      const action = actions[0];
      const decision = action?.action_id === GATE_BUTTONS.approve ? 'approved' : action?.action_id === GATE_BUTTONS.deny ? 'denied' : null;
      const value = decision === null ? null : parseGateValue(action?.value);
      if (decision === null || value === null) return 'ignored';
      const reply = (r: ChatReply) => responseUrl && respond(responseUrl, r);
      const workspaceId = team?.id ?? user.team_id;
      const linked = workspaceId === undefined ? null : await deps.links.userOf({ provider: 'chat_a', workspaceId, chatUserId: user.id, chatUserName: null });
      if (!linked) {
        reply(
          ephemeral(
            `Your chat account is not linked to an svc account, so it cannot decide gates. Type \`${deps.command} link <code>\` with a code from your account settings.`,
          ),
        );
        return 'unlinked';
      }
      try {
        await deps.decide(principalOf(linked), {
          runId: value.run_id,
          stepId: value.step_id,
          decision,
          note: `decided in chat_a as ${workspaceId}/${user.id}`,
        });
      } catch (error) {
        reply(ephemeral(refusalText(error)));
        return 'refused';
      }
      const verdict = `${decision === 'approved' ? 'Approved' : 'Denied'} by ${linked.email}.`;
      reply({ response_type: 'ephemeral', replace_original: true, text: message?.text ? `${message.text}\n${verdict}` : verdict });
      return 'decided';
    },
  };
}

function parseGateValue(raw: string | undefined): GateButtonValue | null {
  if (raw === undefined) return null;
  try {
    const parsed = v.safeParse(gateValue, JSON.parse(raw));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}

export type ChatInteractions = ReturnType<typeof createChatInteractions>;
