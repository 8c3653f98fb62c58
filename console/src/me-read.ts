/** `GET /auth/me`, apart from me.tsx so boot.ts can start it before React loads. */
import { answer, client } from './api.ts';
import type { Me } from './api-shapes.ts';

export const readMe = async (): Promise<Me> => answer(await client.GET('/auth/me'));
