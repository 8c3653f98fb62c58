/**
 * The chat_a slash command's text (SPEC.md "Webhook intake": "the slash command links an
 * identity"). Whatever name the chat app gives the command, its text says what to do:
 * `link <code>`, `unlink`, or anything else for help.
 */
import { normalizeLinkCode } from './link-code.ts';

export type SlashCommand =
  | { kind: 'link'; code: string }
  /** `link` with a missing or malformed code: told how the code looks, nothing is tried. */
  | { kind: 'bad_code' }
  | { kind: 'unlink' }
  | { kind: 'help' };

/** What `text` asks for; the code comes back normalized (domain/chat/link-code.ts). */
export function parseSlashCommand(text: string): SlashCommand {
  const [verb = '', ...rest] = text.trim().split(/\s+/);
  switch (verb.toLowerCase()) {
    case 'link': {
      const code = normalizeLinkCode(rest.join(''));
      return code === null ? { kind: 'bad_code' } : { kind: 'link', code };
    }
    case 'unlink':
      return rest.length === 0 ? { kind: 'unlink' } : { kind: 'help' };
    default:
      return { kind: 'help' };
  }
}
