/** The Task aggregate as a decider (docs/architecture.md "Habits" 1); one stream per task, `task-<id>`. */
import type { Decider } from '../shared/messages.ts';
import type { TaskCommand } from './commands.ts';
import { decideTask } from './decide.ts';
import type { TaskEvent } from './events.ts';
import { evolveTask, initialTaskState, type TaskState } from './state.ts';

export const taskDecider: Decider<TaskCommand, TaskEvent, TaskState> = {
  initialState: initialTaskState,
  evolve: evolveTask,
  decide: decideTask,
};

export type { Assignee, TaskCommand } from './commands.ts';
export type { TaskChanges, TaskEvent } from './events.ts';
export { taskEventTypes } from './events.ts';
export { taskNotices, type TaskNotice } from './notify.ts';
export { taskStatuses, type TaskState, type TaskStatus } from './state.ts';
