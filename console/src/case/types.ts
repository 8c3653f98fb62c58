/** Whether a live frame is about this case. */
export const aboutCase = (caseId: string) => (frame: { type: string; case_id?: unknown }) => frame.type === 'case.updated' && frame.case_id === caseId;
