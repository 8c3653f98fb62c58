/**
 * Task commands. Ids, the position and the time come in with the command (docs/architecture.md
 * "Habits" 3); the caller checked the case (visible, `manage_cases` in its team) and that
 * an assignee is an active user. Every command names the case in the request path, so
 * a task of another case is refused as not found.
 */
import type { Actor } from '../cases/commands.ts';
import type { CommentMentions } from '../cases/mentions.ts';

export type Assignee = { id: string; email: string | null };

export type TaskCommand =
  | {
      type: 'create_task';
      taskId: string;
      caseId: string;
      title: string;
      description: string | null;
      phase: string | null;
      position: number;
      status: string;
      assignee: Assignee | null;
      dueAt: string | null;
      actor: Actor;
      now: string;
    }
  | {
      type: 'update_task';
      caseId: string;
      title?: string;
      description?: string | null;
      status?: string;
      /** `undefined` leaves the due time, `null` clears it. */
      dueAt?: string | null;
      /** `undefined` leaves the assignee, `null` unassigns. */
      assignee?: Assignee | null;
      now: string;
    }
  /** `noAccess`: users who cannot see the case (adapters/identity/case-scope.ts `userCanSeeCase`): the comment notifies none of them. */
  | { type: 'add_comment'; caseId: string; commentId: string; body: string; actor: Actor; mentions: CommentMentions; noAccess: string[]; now: string }
  /** `actorIsAdmin`: the actor is an admin of the case's team (or the realm). */
  | { type: 'delete_comment'; caseId: string; commentId: string; actor: Actor; actorIsAdmin: boolean; now: string }
  /** Moves the task of `caseId` to `toCaseId`, the target of a case merge (issue 50); nothing when it is there already. */
  | { type: 'move_task'; caseId: string; toCaseId: string; now: string };
