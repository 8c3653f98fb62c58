/**
 * One-time link codes (SPEC.md "Peer endpoints", `POST /peer/v1/account-section`
 * `{action: link}`): what a person types after the chat_a slash command to link their chat
 * identity. Ten Crockford base32 characters (50 bits), shown as `XXXXX-XXXXX`; reading one
 * back forgives case, dashes, spaces and the look-alikes Crockford names (O for 0, I and L
 * for 1), since people copy these by hand.
 */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters in a code. */
export const LINK_CODE_LENGTH = 10;

/**
 * The code spelled by `random` (at least LINK_CODE_LENGTH bytes; each byte's low five
 * bits pick a character, so every character is uniform), as `XXXXX-XXXXX`.
 * @throws RangeError when `random` is too short.
 */
export function formatLinkCode(random: Uint8Array): string {
  if (random.length < LINK_CODE_LENGTH) throw new RangeError(`a link code needs ${LINK_CODE_LENGTH} random bytes`);
  const chars = Array.from(random.subarray(0, LINK_CODE_LENGTH), (b) => ALPHABET[b & 31]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** The canonical form of a typed code (ten characters, no dash), or null when it cannot be one. */
export function normalizeLinkCode(typed: string): string | null {
  const canonical = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (canonical.length !== LINK_CODE_LENGTH) return null;
  return [...canonical].every((c) => ALPHABET.includes(c)) ? canonical : null;
}
