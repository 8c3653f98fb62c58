/**
 * The people a case may be given to or its comments may mention: the active users who may
 * manage cases in the case's team and can see the case (`GET
 * /cases/assignable-users?case_id=`; someone else would be refused `assignee_no_access`).
 * Read fresh each time, so someone who signed in a moment ago is offered.
 */
import { answer, client } from '../api.ts';
import type { Person } from '../api-shapes.ts';
import { useResource } from '../resource.ts';

export function useAssignablePeople(caseId: string) {
  return useResource(async () => answer(await client.GET('/cases/assignable-users', { params: { query: { case_id: caseId } } })).items, [caseId]);
}

/** A person as an option's text: `Name <email>`, or the email alone. */
export const personLabel = (person: Person): string => (person.name ? `${person.name} <${person.email}>` : person.email);
